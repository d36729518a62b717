import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Constants from linux/netlink.h and linux/rtnetlink.h (not exported by the Glibc module).
enum NetlinkConstants {
    static let routeProtocol: Int32 = 0  // NETLINK_ROUTE
    static let ueventProtocol: Int32 = 15  // NETLINK_KOBJECT_UEVENT
    static let ueventKernelGroup: UInt32 = 1  // kernel uevents (2 is udev's rebroadcast)

    // rtnetlink multicast groups (RTMGRP_*)
    static let groupLink: UInt32 = 0x1
    static let groupIPv4Address: UInt32 = 0x10
    static let groupIPv4Route: UInt32 = 0x40
    static let groupIPv6Address: UInt32 = 0x100
    static let groupIPv6Route: UInt32 = 0x400

    // message types
    static let done: UInt16 = 3  // NLMSG_DONE
    static let error: UInt16 = 2  // NLMSG_ERROR
    static let newLink: UInt16 = 16  // RTM_NEWLINK
    static let getLink: UInt16 = 18  // RTM_GETLINK
    static let newRoute: UInt16 = 24  // RTM_NEWROUTE
    static let getRoute: UInt16 = 26  // RTM_GETROUTE

    // flags
    static let request: UInt16 = 0x1  // NLM_F_REQUEST
    static let dump: UInt16 = 0x300  // NLM_F_ROOT | NLM_F_MATCH

    static let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET
}

/// A netlink socket bound to some multicast groups (or none, for requests).
struct NetlinkSocket: Sendable {
    let fd: Int32

    init(protocol netlinkProtocol: Int32, groups: UInt32, receiveBuffer: Int32 = 1 << 20) throws(SensorError) {
        let fd = socket(
            AF_NETLINK,
            Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            netlinkProtocol
        )
        guard fd >= 0 else { throw .system("socket(AF_NETLINK, \(netlinkProtocol))", errno) }
        var size = receiveBuffer
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        var address = [UInt8](repeating: 0, count: 12)
        address.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt16(AF_NETLINK), toByteOffset: 0, as: UInt16.self)
            raw.storeBytes(of: groups, toByteOffset: 8, as: UInt32.self)
        }
        let bound = address.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12)
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .system("bind(AF_NETLINK, groups \(groups))", code)
        }
        self.fd = fd
    }

    /// One datagram, or nil when nothing is waiting (EAGAIN). `overrun` is set when the kernel
    /// dropped messages (ENOBUFS): the caller must resynchronise from a dump.
    func receive(_ buffer: inout [UInt8], overrun: inout Bool) -> Int? {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case ENOBUFS:
                overrun = true
                continue
            default: return nil
            }
        }
    }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } == bytes.count
    }

    func close() {
        _ = Glibc.close(fd)
    }
}

/// Parsed netlink messages and attributes.
struct NetlinkMessage {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    /// The payload after the 16-byte header.
    var payload: ArraySlice<UInt8>

    /// Splits a datagram into messages (NLMSG_ALIGN of 4).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 16 {
            let length = Int(bytes.loadUInt32(at: offset))
            guard length >= 16, offset + length <= bytes.endIndex else { break }
            messages.append(
                NetlinkMessage(
                    type: bytes.loadUInt16(at: offset + 4),
                    flags: bytes.loadUInt16(at: offset + 6),
                    sequence: bytes.loadUInt32(at: offset + 8),
                    payload: bytes[(offset + 16)..<(offset + length)]
                )
            )
            offset += (length + 3) & ~3
        }
        return messages
    }

    /// rtattr list: (type, value) pairs, RTA_ALIGN of 4. The nested flag (0x8000) is masked off.
    static func attributes(_ bytes: ArraySlice<UInt8>) -> [(type: UInt16, value: ArraySlice<UInt8>)] {
        var result: [(UInt16, ArraySlice<UInt8>)] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 4 {
            let length = Int(bytes.loadUInt16(at: offset))
            guard length >= 4, offset + length <= bytes.endIndex else { break }
            result.append((bytes.loadUInt16(at: offset + 2) & 0x3fff, bytes[(offset + 4)..<(offset + length)]))
            offset += (length + 3) & ~3
        }
        return result
    }

    /// A dump request: header + a family-specific struct.
    static func request(type: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let length = UInt32(16 + body.count)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: type, toByteOffset: 4, as: UInt16.self)
            raw.storeBytes(of: NetlinkConstants.request | NetlinkConstants.dump, toByteOffset: 6, as: UInt16.self)
            raw.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
        }
        return bytes + body
    }
}

extension ArraySlice where Element == UInt8 {
    func loadUInt16(at index: Int) -> UInt16 {
        UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    func loadUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) | UInt32(self[index + 1]) << 8 | UInt32(self[index + 2]) << 16 | UInt32(self[index + 3])
            << 24
    }

    func loadInt32(at index: Int) -> Int32 {
        Int32(bitPattern: loadUInt32(at: index))
    }

    /// A NUL-terminated string attribute.
    var cString: String {
        let bytes = self.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Enters a network namespace on the calling thread (`setns(2)` with CLONE_NEWNET). Only
/// the calling thread moves; sockets it creates afterwards belong to that namespace.
/// `setns` is looked up at run time because the Glibc module does not export it.
func enterNetworkNamespace(_ path: String) throws(SensorError) {
    typealias SetNS = @convention(c) (Int32, Int32) -> Int32
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "setns") else {
        throw .system("dlsym(setns)", ENOSYS)
    }
    let setns = unsafeBitCast(symbol, to: SetNS.self)
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .system("open(\(path))", errno) }
    defer { Glibc.close(fd) }
    guard setns(fd, NetlinkConstants.cloneNewNet) == 0 else { throw .system("setns(\(path))", errno) }
}

/// A dedicated thread that sleeps in `poll(2)` on one fd plus a wake pipe and calls `onReadable`
/// each time the fd has data. Used for the netlink listeners, whose waits must never block
/// the Swift cooperative pool.
final class PollThread: Sendable {
    private struct Exit {
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let pipe: WakePipe
    private let exit = Mutex(Exit())

    /// `setUp` runs first on the new thread and returns the fd to watch (or throws, which
    /// `start` rethrows); `onReadable` runs on the thread whenever that fd has data or an
    /// error to report (netlink signals ENOBUFS as POLLERR); `tearDown` runs on the thread
    /// after `stop()`.
    static func start(
        name: String,
        setUp: @escaping @Sendable () throws -> Int32,
        onReadable: @escaping @Sendable () -> Void,
        tearDown: @escaping @Sendable () -> Void
    ) async throws -> PollThread {
        let pipe: WakePipe
        do { pipe = try WakePipe() } catch { throw error }
        let thread = PollThread(pipe: pipe)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let t = Thread {
                let fd: Int32
                do {
                    fd = try setUp()
                } catch {
                    thread.finish()
                    continuation.resume(throwing: error)
                    return
                }
                continuation.resume()
                thread.loop(fd: fd, onReadable: onReadable)
                tearDown()
                thread.finish()
            }
            t.name = name
            t.stackSize = 256 * 1024
            t.start()
        }
        return thread
    }

    private init(pipe: WakePipe) {
        self.pipe = pipe
    }

    private func finish() {
        let waiters = exit.withLock { exit -> [CheckedContinuation<Void, Never>] in
            exit.finished = true
            defer { exit.waiters.removeAll() }
            return exit.waiters
        }
        // Closed only after `finished` is set, so stop() never writes to a closed (or reused) fd.
        pipe.close()
        for waiter in waiters { waiter.resume() }
    }

    private func loop(fd: Int32, onReadable: () -> Void) {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pipe.readFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let r = poll(&fds, 2, -1)
            if r < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLNVAL) != 0 { return }
            if fds[0].revents != 0 { onReadable() }
        }
    }

    /// Wakes the thread, lets it tear down, and returns once it has.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = exit.withLock { exit -> Bool in
                if exit.finished { return true }
                exit.waiters.append(continuation)
                pipe.wake()
                return false
            }
            if finished { continuation.resume() }
        }
    }
}

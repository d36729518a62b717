import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

@testable import LullDaemon

/// The release at the end of start-up advises every read-only mapping of the running executable
/// to be read back one page at a time, leaves writable ones alone, and the first request lets
/// faults read around again.
@Suite(.serialized) struct StartupPagesTests {
    @Test func readOnlyMappingsAreReadPageByPageUntilWorkArrives() throws {
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let pages = StartupPages()
        let advised = pages.releaseNow()
        #expect(advised > 0)

        let released = try Self.imageMappings(image, pid: "self")
        let readOnly = released.filter { !$0.writable }
        #expect(readOnly.count >= 2, "code and read-only data: \(released)")
        #expect(readOnly.map(\.length).reduce(0, +) == advised)
        for mapping in readOnly { #expect(mapping.readsPageByPage, "\(mapping)") }
        for mapping in released where mapping.writable { #expect(!mapping.readsPageByPage, "\(mapping)") }

        pages.workArrived()
        for mapping in try Self.imageMappings(image, pid: "self") { #expect(!mapping.readsPageByPage, "\(mapping)") }
    }

    /// A request before the release (the one that started a socket-activated lulld): the pages
    /// are still given back, but read around as usual.
    @Test func aRequestBeforeTheReleaseKeepsTheUsualReadAround() throws {
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let pages = StartupPages()
        pages.workArrived()
        #expect(pages.releaseNow() > 0)
        for mapping in try Self.imageMappings(image, pid: "self") { #expect(!mapping.readsPageByPage, "\(mapping)") }
    }

    /// The real lulld: advised once it is ready, read around again after its first request.
    @Test func theDaemonReadsPageByPageWhileIdleOnly() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.remove() }
        try daemon.start()
        let pid = String(daemon.pid)
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        try await waitUntil("lulld's code is advised page by page") {
            try Self.imageMappings(image, pid: pid).contains { !$0.writable && $0.readsPageByPage }
        }
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        _ = try await client.status()
        try await waitUntil("lulld's code is read around again") {
            try !Self.imageMappings(image, pid: pid).contains(where: \.readsPageByPage)
        }
    }

    /// A lulld that runs queued work and gets no request: the job's start lifts the advice.
    @Test func aJobStartedWithoutARequestLetsFaultsReadAroundAgain() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        // Whole seconds, as the API keeps times.
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 10).rounded(.down))
        let job = try await client.submit(JobSubmission(kind: .run, url: "", notBefore: due, argv: ["true"]))
        _ = daemon.stop()
        // Restarted, it gets no request until the job has started.
        try daemon.start()
        let pid = String(daemon.pid)
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        try await waitUntil("lulld's code is advised page by page", timeout: .seconds(9)) {
            try Self.imageMappings(image, pid: pid).contains { !$0.writable && $0.readsPageByPage }
        }
        #expect(Date() < due, "advised before the job was due")
        try await waitUntil("lulld's code is read around again", timeout: .seconds(30)) {
            try !Self.imageMappings(image, pid: pid).contains(where: \.readsPageByPage)
        }
        #expect(Date() >= due, "lifted by the job's start, not before")
        #expect(try await client.job(job.id).state != .queued)
    }

    struct Advised: CustomStringConvertible {
        var line: String
        var length: Int
        var writable: Bool
        var flags: [Substring]
        /// `rr` in `VmFlags`: `MADV_RANDOM` is in force.
        var readsPageByPage: Bool { flags.contains("rr") }
        var description: String { "\(line) [\(flags.joined(separator: " "))]" }
    }

    /// The image's mappings in /proc/PID/smaps, with the kernel's `VmFlags`.
    static func imageMappings(_ image: String, pid: String) throws -> [Advised] {
        let smaps = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
        var found: [Advised] = []
        var current: Advised?
        for line in smaps.split(separator: "\n") {
            if let mapping = StartupPages.Mapping(line) {
                current =
                    mapping.path == image
                    ? Advised(line: String(line), length: mapping.length, writable: mapping.writable, flags: [])
                    : nil
            } else if line.hasPrefix("VmFlags:"), var advised = current {
                advised.flags = line.dropFirst("VmFlags:".count).split(separator: " ")
                found.append(advised)
                current = nil
            }
        }
        return found
    }
}

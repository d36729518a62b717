import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One boot of a `GuestImage` under qemu: virtio disks, virtio-serial ports whose output qemu
/// appends to host files the moment the guest writes it, no network device. `cut()` is the power
/// cut: SIGKILL to qemu takes the guest's memory (its page cache and the ext4 journal it has not
/// committed) with it, while what the guest wrote to its disks is in the image files, which the
/// next boot uses as they are.
public final class QemuGuest: @unchecked Sendable {
    public static let qemu = "/usr/bin/qemu-system-x86_64"

    public enum Accelerator: Sendable, Equatable {
        case kvm
        /// qemu's own emulation, and why KVM is not used.
        case tcg(String)
    }

    public struct Disk: Sendable {
        public var path: String
        public var readOnly: Bool
        public init(_ path: String, readOnly: Bool = false) {
            self.path = path
            self.readOnly = readOnly
        }
    }

    /// KVM when `/dev/kvm` can run a stock kernel; otherwise emulation, saying why.
    public static var accelerator: Accelerator {
        guard access("/dev/kvm", R_OK | W_OK) == 0 else { return .tcg("/dev/kvm is missing or not accessible") }
        // PVM (a nested-virtualisation KVM for cloud sandboxes) runs only guest kernels built for it.
        if FileManager.default.fileExists(atPath: "/sys/module/kvm_pvm") {
            return .tcg("/dev/kvm is PVM's (kvm_pvm), which boots only PVM guest kernels, not Debian's")
        }
        return .kvm
    }

    private let process = Process()
    public let console: String

    /// Starts qemu. `ports` maps a virtio-serial port name to the host file its output goes to.
    public init(
        image: GuestImage,
        disks: [Disk],
        ports: [String: String],
        kernelArguments: [String],
        accelerator: Accelerator,
        memoryMiB: Int = 1024,
        cpus: Int = 2,
        lifetime: Duration = .seconds(3600),
        logDirectory: String
    ) throws {
        console = logDirectory + "/console.log"
        var arguments = [
            "-nodefaults", "-no-reboot", "-display", "none", "-nic", "none", "-m", "\(memoryMiB)", "-smp", "\(cpus)",
            "-cpu", "max", "-kernel", image.kernel, "-initrd", image.initrd,
            "-append",
            (["root=LABEL=lullroot", "rw", "console=ttyS0", "panic=-1", "quiet"] + kernelArguments)
                .joined(separator: " "),
            "-serial", "file:\(console)", "-device", "virtio-serial-pci",
        ]
        arguments += accelerator == .kvm ? ["-accel", "kvm"] : ["-accel", "tcg,thread=multi"]
        for disk in disks {
            // cache=none: qemu writes with O_DIRECT, so a write the guest saw complete is on the
            // host's disk, not only in qemu; a guest flush becomes an fdatasync. The host page cache
            // plays no part in what survives (docs/reliability.md, Power cuts).
            let mode = disk.readOnly ? "readonly=on,cache=writeback" : "cache=none,aio=threads"
            arguments += ["-drive", "file=\(disk.path),format=raw,if=virtio,\(mode)"]
        }
        for (index, (name, path)) in ports.sorted(by: { $0.key < $1.key }).enumerated() {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            arguments += [
                "-chardev", "file,id=port\(index),path=\(path),append=on",
                "-device", "virtserialport,chardev=port\(index),name=\(name)",
            ]
        }
        // Under timeout(1), so that a guest outlives a killed test run by `lifetime` at most.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--signal=KILL", "\(Int(lifetime.components.seconds))", Self.qemu] + arguments
        let log = logDirectory + "/qemu.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public var isRunning: Bool { process.isRunning }

    /// The power cut: SIGKILL to qemu itself (timeout's child), then timeout exits.
    public func cut() {
        if process.isRunning {
            let wrapper = process.processIdentifier
            let children =
                (try? String(contentsOfFile: "/proc/\(wrapper)/task/\(wrapper)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGKILL) }
            if children.isEmpty { kill(wrapper, SIGKILL) }
        }
        process.waitUntilExit()
    }

    /// The last `count` characters of the guest's console, for failure messages.
    public func consoleTail(_ count: Int = 3000) -> String {
        String((try? String(contentsOfFile: console, encoding: .utf8))?.suffix(count) ?? "(no console output)")
    }
}

public struct QemuGuestError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

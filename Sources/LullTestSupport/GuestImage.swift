import Crypto
import Foundation

/// The power-cut test's virtual machine, as files: Debian's cloud kernel, its initramfs and an
/// ext4 image of the systemd-nspawn test's debootstrapped root. Built once by
/// `Tests/Fixtures/powercut/build-image.sh` and cached beside that root; the cache is keyed by
/// the script and the root it starts from, so a change to either builds it anew.
public struct GuestImage: Sendable {
    public static let cacheDirectory = "/var/cache/lull-powercut"

    public let kernel: String
    public let initrd: String
    /// The pristine root filesystem; each run writes a copy of it.
    public let root: String

    /// Why this machine cannot build or boot the guest, or nil when it can.
    public static var unavailableReason: String? {
        if let reason = NspawnMachine.unavailableReason { return reason }
        for tool in [QemuGuest.qemu, "/usr/sbin/mkfs.ext4"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (apt-get install qemu-system-x86 e2fsprogs)"
        }
        return nil
    }

    /// The cached image, built first if it is missing (about a minute and a half, once).
    public static func prepare(buildScript: String) throws -> GuestImage {
        try NspawnMachine.prepareCache()
        let script = try Data(contentsOf: URL(fileURLWithPath: buildScript))
        let key = SHA256.hash(data: script + Data(NspawnMachine.cacheRoot.utf8)).prefix(6)
            .map { String(format: "%02x", $0) }.joined()
        let directory = "\(cacheDirectory)/guest-\(key)"
        let image = GuestImage(
            kernel: directory + "/vmlinuz",
            initrd: directory + "/initrd.img",
            root: directory + "/root.img"
        )
        if FileManager.default.fileExists(atPath: image.root) { return image }
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        FileHandle.standardError.write(
            Data(
                "GuestImage: building the power-cut guest (kernel, initramfs, root image) in \(directory) (once)\n".utf8
            )
        )
        let build = try CommandRunner.run("/bin/sh", [buildScript, NspawnMachine.cacheRoot, directory])
        guard build.status == 0, FileManager.default.fileExists(atPath: image.root) else {
            throw QemuGuestError(
                "build-image.sh failed (\(build.status)): \(build.stdout.suffix(2000))\(build.stderr.suffix(2000))"
            )
        }
        return image
    }
}

import Foundation
import LullTestSupport
import Testing

/// The process host on a cgroup v2 machine whose controllers are there to delegate (this
/// project's CI machine binds them all to cgroup v1, so `RunCgroupTests` there shows cgroups
/// without controllers): the power-cut test's Debian guest boots under qemu, runs lulld as root
/// in a unit that systemd delegates its cgroup to (`Delegate=yes`), and reports each run job's
/// view. The kernel enforces the resource controls lulld wrote into the jobs' cgroups. Then the
/// systemd host, from a root lulld and from the shipped system instance, whose pauses freeze.
@Suite(
    .serialized,
    .enabled(if: PowerCutGate.shouldRun, "the cgroup guest needs root, qemu-system-x86, debootstrap and nspawn")
)
struct CgroupGuestTests {
    static var fixtures: String { SystemdEnvironment.repository + "/Tests/Fixtures/cgroup-guest" }

    @Test(.timeLimit(.minutes(20)))
    func aDelegatedSubtreesControllersEnforceTheJobsControls() throws {
        let began = ContinuousClock.now
        let image = try GuestImage.prepare(buildScript: PowerCutPayload.fixtures + "/build-image.sh")
        let directory = GuestImage.cacheDirectory + "/cgroup-\(getpid())-\(UUID().uuidString.prefix(6))"
        let staging = directory + "/payload"
        try FileManager.default.createDirectory(atPath: staging + "/root", withIntermediateDirectories: true)
        try GuestPayloadDisk.stageLull(into: staging)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/boot.sh", toPath: staging + "/boot.sh")
        for name in ["lull0.netdev", "lull0.network"] {
            let source = PowerCutPayload.fixtures + "/" + name
            try FileManager.default.copyItem(atPath: source, toPath: staging + "/" + name)
        }
        try GuestPayloadDisk.makePayload(directory + "/payload.img", from: staging)
        // The image's fstab mounts a data disk at /srv.
        try GuestPayloadDisk.makeFilesystem(directory + "/data.img", label: "lulldata", megabytes: 64, from: nil)
        try GuestPayloadDisk.check("/bin/cp", ["--sparse=always", image.root, directory + "/root.img"])
        try? FileManager.default.removeItem(atPath: staging)
        var passed = false
        defer {
            if passed {
                try? FileManager.default.removeItem(atPath: directory)
            } else {
                print("cgroup guest: disks and logs kept in \(directory)")
            }
        }

        let agent = PortLog(path: directory + "/agent.log")
        let accelerator = QemuGuest.accelerator
        let guest = try QemuGuest(
            image: image,
            disks: [
                .init(directory + "/root.img"), .init(directory + "/payload.img", readOnly: true),
                .init(directory + "/data.img"),
            ],
            ports: ["lull.agent": agent.path],
            kernelArguments: [],
            accelerator: accelerator,
            logDirectory: directory
        )
        defer { guest.cut() }
        var said: [String: String] = [:]
        let deadline = ContinuousClock.now + (accelerator == .kvm ? .seconds(240) : .seconds(900))
        while let line = agent.nextLine(until: deadline, alive: { guest.isRunning }) {
            if line.hasPrefix("error ") { throw QemuGuestError("the guest: \(line)\n\(guest.consoleTail())") }
            if line == "done" { break }
            if line.hasPrefix("stuck ") || line.hasPrefix("submitting ") { print("cgroup guest: \(line)") }
            let words = line.split(separator: " ", maxSplits: line.hasPrefix("job ") ? 2 : 1).map(String.init)
            let key = line.hasPrefix("job ") && words.count > 1 ? "job \(words[1])" : words[0]
            said[key] = words.last ?? ""
        }
        guard said["job unit"] != nil else {
            throw QemuGuestError("the guest did not finish: \(said)\n\(guest.consoleTail())")
        }
        print("cgroup guest: \(said["hierarchy"] ?? "?"); \(said["log"] ?? "?") (\(ContinuousClock.now - began))")

        let base = "/system.slice/lull-cg.service/jobs"
        #expect(said["hierarchy"]?.hasPrefix("cgroup2fs") == true, "\(said["hierarchy"] ?? "")")
        #expect(
            said["log"]?.contains("each command in a cgroup of its own under /sys/fs/cgroup\(base)") == true,
            "\(said["log"] ?? "")"
        )
        let memory = try view(said, "memory")
        #expect(memory.state == "failed" && memory.error == "memory_limit", "\(memory)")
        #expect(memory.result["cgroup"] as? String == base + "/job-5")
        let peak = try view(said, "peak")
        #expect(peak.state == "succeeded")
        #expect((peak.result["memory_peak_bytes"] as? Int ?? 0) >= 100 << 20, "\(peak)")
        let tasks = try view(said, "tasks")
        #expect(tasks.state == "failed" && tasks.error == "exit_status", "\(tasks)")
        #expect((tasks.result["output_tail"] as? String ?? "").contains("fork"), "\(tasks)")
        let weights = try view(said, "weights")
        #expect(weights.result["output_tail"] as? String == "50\ndefault 20\nmax\n", "\(weights)")
        let io = try view(said, "io")
        #expect((io.result["io_write_bytes"] as? Int ?? 0) >= 8 << 20, "\(io)")
        // The systemd host on the same kernel: the unit's CPUUsageNSec, and its MemoryCurrent
        // sampled each second (systemd 252 has no MemoryPeak).
        let unit = try view(said, "unit")
        // This lulld is lull-cg.service, not the shipped lulld.service: its units carry the tag
        // of its state directory (`JobUnitNames`).
        let name = unit.result["unit"] as? String ?? ""
        let tag = name.dropFirst("lull-job-".count).prefix(8)
        #expect(unit.state == "succeeded" && name == "lull-job-\(tag)-1.service", "\(unit)")
        #expect(tag.count == 8 && tag.allSatisfy(\.isHexDigit), "\(unit)")
        #expect((unit.result["cpu_seconds"] as? Double ?? 0) >= 0.8, "\(unit)")
        #expect((unit.result["memory_peak_bytes"] as? Int ?? 0) >= 64 << 20, "\(unit)")
        // The system instance (user lull) pauses through FreezeUnit, which the installed bus
        // policy passes: the unit frozen by the cgroup freezer, its process asleep in it rather
        // than stopped by SIGSTOP (state T), its CPU standing still; resume thaws it.
        let freeze = (said["freeze"] ?? "").split(separator: " ").map(String.init)
        #expect(freeze.count == 4, "\(said["freeze"] ?? "no report of the pause")")
        if freeze.count == 4 {
            #expect(freeze[0] == "frozen" && freeze[1] != "T", "FreezerState \(freeze[0]), process state \(freeze[1])")
            #expect((Int(freeze[2]) ?? .max) <= 1, "CPU went on while paused: \(freeze[2]) ticks in 1 s")
            #expect(freeze[3] == "paused")
        }
        #expect(said["thaw"] == "running", "FreezerState after resume: \(said["thaw"] ?? "-")")
        let paused = try view(said, "paused")
        #expect(paused.state == "succeeded" && (paused.result["cpu_seconds"] as? Double ?? 0) >= 2.9, "\(paused)")
        print(
            "cgroup guest: the system instance's pause: \(said["freeze"] ?? "-"); after resume \(said["thaw"] ?? "-")"
        )
        print(
            "cgroup guest: the systemd host's unit: cpu_seconds \(unit.result["cpu_seconds"] ?? "-"), memory_peak_bytes \(unit.result["memory_peak_bytes"] ?? "-")"
        )
        print(
            "cgroup guest: memory_max 32M against 256 MiB: \(memory.error ?? "-"); memory_peak_bytes \(peak.result["memory_peak_bytes"] ?? "-"); tasks_max 3: \(tasks.result["output_tail"] ?? "-"); io_write_bytes \(io.result["io_write_bytes"] ?? "-")"
        )
        passed = true
    }

    private struct View: CustomStringConvertible {
        var state: String
        var error: String?
        var result: [String: Any]
        var description: String { "\(state) \(error ?? "") \(result)" }
    }

    private func view(_ said: [String: String], _ name: String) throws -> View {
        let text = try #require(said["job \(name)"], "no report of job \(name)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        return View(
            state: object["state"] as? String ?? "",
            error: (object["error"] as? [String: Any])?["code"] as? String,
            result: object["result"] as? [String: Any] ?? [:]
        )
    }
}

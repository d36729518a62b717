import Foundation
import LullTestSupport

/// The instructions lulld executes per durable submission, counted by valgrind's callgrind:
/// one client, sequential, after a warm-up. On this VM the rates in the submit table move by
/// 10–30 % from hour to hour with the host's load; an instruction count does not, so it is the
/// figure to compare two builds by (the kernel's share, syscalls and fsync, is not in it).
enum InstructionCount {
    struct Result {
        var submissions: Int
        var instructions: Int
        var perSubmission: Double { Double(instructions) / Double(submissions) }
    }

    /// Nil, with the reason, when valgrind or binutils are missing.
    static func measure(
        config: String,
        submissions: Int,
        progress: (String) -> Void
    ) throws -> Result? {
        let tools = ["valgrind", "callgrind_control", "objcopy"].map { name in
            ["/usr/bin", "/usr/local/bin"].map { "\($0)/\(name)" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }
        guard let valgrind = tools[0], let control = tools[1], let objcopy = tools[2] else {
            progress("instruction count skipped: valgrind and binutils are needed (make bench installs them)")
            return nil
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-callgrind-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // This valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
        let stripped = scratch.appendingPathComponent("lulld").path
        try CommandRunner.run(objcopy, ["--strip-debug", DaemonProcess.binary("lulld"), stripped]).requireSuccess(
            "objcopy"
        )
        let output = scratch.appendingPathComponent("callgrind.out").path
        let daemon = try DaemonProcess(
            config: config,
            launcher: [valgrind, "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=\(output)"],
            executable: stripped
        )
        defer { daemon.remove() }
        progress("instruction count: lulld under callgrind, \(submissions) sequential submissions")
        try daemon.start(timeout: .seconds(120))
        defer { daemon.kill() }
        let pid = String(daemon.pid)
        _ = try SubmitBenchmark.throughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            clients: 1,
            requests: 200,
            firstID: 0
        )
        try CommandRunner.run(control, ["--instr=on", pid]).requireSuccess("callgrind_control --instr=on")
        _ = try SubmitBenchmark.throughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            clients: 1,
            requests: submissions,
            firstID: 1000
        )
        try CommandRunner.run(control, ["--instr=off", pid]).requireSuccess("callgrind_control --instr=off")
        try CommandRunner.run(control, ["--dump", pid]).requireSuccess("callgrind_control --dump")
        // The dump is `callgrind.out.1`; its `totals:` line is every instruction counted.
        let dumps = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
            $0.hasPrefix("callgrind.out.")
        }
        for dump in dumps {
            let text = try String(contentsOfFile: scratch.appendingPathComponent(dump).path, encoding: .utf8)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("totals: ") }),
                let total = Int(line.dropFirst("totals: ".count))
            {
                return Result(submissions: submissions, instructions: total)
            }
        }
        throw BenchError("callgrind wrote no totals for lulld (see \(daemon.logPath))")
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `systemctl show` of lulld's two units, with a short deadline: a diagnosis must not hang.
enum UnitStates {
    static func read(_ manager: ServiceDiagnosis.Manager) -> [String: [String: String]]? {
        guard
            let systemctl = ["/usr/bin/systemctl", "/bin/systemctl"].first(where: FileManager.default.isExecutableFile)
        else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments =
            (manager == .user ? ["--user"] : []) + [
                "show", "-p", "Id,ActiveState,Result,ExecMainStatus", "lulld.service", "lulld.socket",
            ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return parse(text)
    }

    /// Blocks of `Key=value` lines, one per unit, separated by blank lines; keyed by `Id`.
    static func parse(_ text: String) -> [String: [String: String]] {
        var units: [String: [String: String]] = [:]
        for block in text.components(separatedBy: "\n\n") {
            var values: [String: String] = [:]
            for line in block.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            if let id = values["Id"] { units[id] = values }
        }
        return units
    }
}

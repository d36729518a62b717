import Foundation

/// A stand-in for `/proc` whose pressure files a test writes, so scheduling under pressure is
/// scripted rather than left to whatever else the machine is doing. Everything else (`self`,
/// `stat`, `meminfo`, `loadavg`) links to the real `/proc`, read by whichever process opens it.
public final class ProcFixture: Sendable {
    public let root: String

    /// Creates the fixture under `directory` with all pressures at zero.
    public init(in directory: URL) throws {
        root = directory.appendingPathComponent("proc").path
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/pressure", withIntermediateDirectories: true)
        for name in ["self", "stat", "meminfo", "loadavg"] {
            try manager.createSymbolicLink(atPath: root + "/" + name, withDestinationPath: "/proc/" + name)
        }
        try setPressure(cpu: 0, memory: 0, io: 0)
    }

    /// Writes PSI files in the kernel's format; each is replaced atomically.
    public func setPressure(cpu: Double, memory: Double, io: Double = 0) throws {
        for (name, avg10) in [("cpu", cpu), ("memory", memory), ("io", io)] {
            let text = """
                some avg10=\(String(format: "%.2f", avg10)) avg60=0.00 avg300=0.00 total=0
                full avg10=0.00 avg60=0.00 avg300=0.00 total=0

                """
            try text.write(toFile: root + "/pressure/" + name, atomically: true, encoding: .utf8)
        }
    }
}

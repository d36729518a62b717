import Foundation
import LullTransfer

/// A class's `tcp_congestion` that this kernel does not offer: neither among the loaded
/// algorithms nor as a module to load. The daemon would carry on without it (and say so), so
/// this is a warning where the admin looks first, `--check-config`, not an error.
enum CongestionControlCheck {
    static func warnings(
        for config: DaemonConfig,
        available: Set<String> = loadedAlgorithms(),
        loadable: (String) -> Bool = moduleExists
    ) -> [ConfigWarning] {
        config.transfers.classTraffic.sorted { $0.key < $1.key }.compactMap { className, marking in
            guard let name = marking.congestion, !available.contains(name), !loadable(name),
                let origin = config.origins["classes.\(className).tcp_congestion"]
            else { return nil }
            let offered = available.sorted().joined(separator: ", ")
            return ConfigWarning(
                origin: origin,
                message:
                    "this kernel offers no TCP congestion control \"\(name)\" (loaded: \(offered.isEmpty ? "none" : offered); no module tcp_\(name)); the class's transfers will run without it: load the module or pick one of those"
            )
        }
    }

    static func loadedAlgorithms() -> Set<String> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_available_congestion_control", encoding: .utf8))
        return Set((text ?? "").split(whereSeparator: \.isWhitespace).map(String.init))
    }

    /// Whether the running kernel has a module for `name` under /lib/modules.
    static func moduleExists(_ name: String) -> Bool {
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let directory = "/lib/modules/\(release)/kernel/net/ipv4"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.contains { $0 == "tcp_\(name).ko" || $0.hasPrefix("tcp_\(name).ko.") }
    }
}

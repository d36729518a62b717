import Foundation

/// Which config files a daemon reads, in words for the journal: `journalctl -u lulld` shows the
/// message alone, so an admin who edited a file sees there whether lulld read it.
enum ConfigSources {
    /// `config /etc/lull/lull.toml, /etc/lull/lull.d/50-lte.toml`, or where it looked in vain.
    static func describe(_ settings: DaemonSettings) -> String {
        if let file = settings.configFile { return "config " + files(of: file).joined(separator: ", ") }
        let looked = settings.options.map(searched) ?? []
        return "no config file; embedded defaults"
            + (looked.isEmpty ? "" : " (looked for \(looked.joined(separator: ", ")))")
    }

    /// The main file and its drop-ins, in the order they apply.
    static func files(of file: String) -> [String] {
        [file] + ConfigLoader.dropIns(of: file)
    }

    /// The paths `DaemonOptions.configFile` tries, learnt by asking it with nothing present, so
    /// the list cannot drift from the search itself.
    static func searched(_ options: DaemonOptions) -> [String] {
        var paths: [String] = []
        _ = options.configFile(exists: {
            paths.append($0)
            return false
        })
        return paths
    }
}

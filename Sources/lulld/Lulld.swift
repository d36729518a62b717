import ArgumentParser
import Foundation
import Logging
import LullAPI
import LullDaemon

/// `lulld`: the Lull daemon. Everything interesting lives in LullDaemon; this only parses flags.
@main
enum LulldMain {
    static func main() async {
        // Run Swift Concurrency on NIO's event loops: the control socket, the store's callbacks
        // and the transfers then share a few threads instead of hopping between two pools.
        EventLoopGlobalExecutor.install()
        await Lulld.main()
    }
}

struct Lulld: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lulld",
        abstract: "Lull: a battery- and resource-aware background transfer daemon.",
        discussion: """
            With no options, runs a user instance on embedded defaults: the store under \
            $XDG_STATE_HOME/lull (or ~/.local/state/lull) and the socket at \
            $XDG_RUNTIME_DIR/lull/lull.sock (or lull.sock in the state directory).

            Without --config, the settings come from lull.toml in $CONFIGURATION_DIRECTORY (the \
            unit's /etc/lull) if it is there, else from $XDG_CONFIG_HOME/lull/lull.toml (or \
            ~/.config/lull/lull.toml) if it is there, else the embedded defaults apply. SIGHUP \
            (systemctl reload) reads that file again; on the embedded defaults it looks again, in \
            the same order.
            """,
        version: LullDefaults.version)

    @Option(name: .long, help: ArgumentHelp("Read settings from this TOML file.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Keep the job store in this directory.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this Unix socket path.", valueName: "path"))
    var socket: String?

    @Flag(name: .customLong("check-config"), help: "Validate the config file, print any errors, and exit.")
    var checkConfig = false

    func run() async throws {
        let options = DaemonOptions(
            configPath: config, stateDirectory: stateDir, socketPath: socket,
            environment: ProcessInfo.processInfo.environment)
        var daemonConfig = DaemonConfig()
        let configFile = options.configFile(exists: { FileManager.default.fileExists(atPath: $0) })
        if let file = configFile {
            do {
                daemonConfig = try ConfigLoader.loadWithDropIns(file: file)
            } catch {
                FileHandle.standardError.write(Data("lulld: invalid configuration:\n\(error)\n".utf8))
                throw ExitCode(2)
            }
            if checkConfig {
                for checked in [file] + ConfigLoader.dropIns(of: file) { print("\(checked): ok") }
            }
        } else if checkConfig {
            print("no config file; the embedded defaults apply")
        }
        if checkConfig { return }

        // Under systemd, structured records straight to the journal; from a shell, plain stderr.
        let toJournal = JournalLogHandler.stderrIsJournal(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            if toJournal { return JournalLogHandler(identifier: "lulld") }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        let logger = Logger(label: "lulld")
        do {
            try await Daemon.run(options.settings(with: daemonConfig, from: configFile), logger: logger)
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("lulld: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}


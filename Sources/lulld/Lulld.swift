import ArgumentParser
import Foundation
import Logging
import LullAPI
import LullDaemon

/// `lulld`: the Lull daemon. Everything interesting lives in LullDaemon; this only parses flags.
@main
enum LulldMain {
    static func main() async {
        StandardDescriptors.ensureOpen()
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
            ~/.config/lull/lull.toml) if it is there, else the embedded defaults apply. A reload reads \
            that file again (on the embedded defaults it looks again, in the same order): SIGHUP, \
            or lullctl reload, which answers with the outcome (systemctl reload runs it and fails \
            when the file is refused).

            --check-config checks what the installed service reads: as root (or with --system) the \
            system instance's /etc/lull/lull.toml and its lull.d/*.toml drop-ins, else (or with \
            --user) $XDG_CONFIG_HOME/lull/lull.toml (or ~/.config/lull/lull.toml) and its drop-ins.

            Exit status: 0 a clean stop, or the config checked is valid; 1 a failure a restart may \
            cure (the store or the socket failed, another lulld runs); 2 invalid configuration; 3 \
            refused to start until an admin acts (an unsafe or unusable state directory, a store \
            written by a newer lulld); 64 invalid command line. The units do not restart lulld after \
            2, 3 or 64 (RestartPreventExitStatus=).
            """,
        version: LullDefaults.version
    )

    @Option(name: .long, help: ArgumentHelp("Read settings from this TOML file.", valueName: "file"))
    var config: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp("Keep the job store in this directory.", valueName: "dir")
    )
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this Unix socket path.", valueName: "path"))
    var socket: String?

    @Flag(
        name: .customLong("check-config"),
        help: "Validate the config file the service reads (see --system, --user), print any errors, and exit."
    )
    var checkConfig = false

    @Flag(
        name: .long,
        help: "With --check-config: check the system instance's /etc/lull/lull.toml (the default for root)."
    )
    var system = false

    @Flag(
        name: .long,
        help: "With --check-config: check your user instance's ~/.config/lull/lull.toml (the default for others)."
    )
    var user = false

    func validate() throws {
        if system && user { throw ValidationError("give --system or --user, not both") }
        if (system || user) && !checkConfig {
            throw ValidationError("--system and --user choose which instance --check-config checks; add --check-config")
        }
        if (system || user) && config != nil {
            throw ValidationError("--config names the file to check; leave out --\(system ? "system" : "user")")
        }
    }

    func run() async throws {
        let options = DaemonOptions(
            configPath: config,
            stateDirectory: stateDir,
            socketPath: socket,
            environment: ProcessInfo.processInfo.environment
        )
        if checkConfig {
            let check = ConfigCheck(
                config: config,
                instance: system ? .system : user ? .user : nil,
                environment: options.environment
            )
            let report = check.run()
            if report.exitStatus == .success {
                // Through the same unbuffered handles, so the ok lines come before the warnings.
                FileHandle.standardOutput.write(Data(report.text.utf8))
                // Not fatal: the file is valid, some keys just cannot act where it is used.
                let warnings = report.warnings.map { "\($0)\n" }.joined()
                FileHandle.standardError.write(Data(warnings.utf8))
                return
            }
            FileHandle.standardError.write(Data(report.text.utf8))
            throw ExitCode(report.exitStatus.rawValue)
        }
        var daemonConfig = DaemonConfig()
        let configFile = options.configFile(exists: { FileManager.default.fileExists(atPath: $0) })
        if let file = configFile {
            do {
                daemonConfig = try ConfigLoader.loadWithDropIns(file: file)
            } catch {
                FileHandle.standardError.write(
                    Data(
                        "lulld: invalid configuration:\n\(error)\nlulld --check-config --config \(file) checks it after a fix.\n"
                            .utf8
                    )
                )
                throw ExitCode(LulldExitStatus.invalidConfiguration.rawValue)
            }
        }

        // Under systemd, structured records straight to the journal; from a shell, plain stderr.
        let toJournal = JournalLogHandler.stderrIsJournal(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            if toJournal { return EscapingLogHandler(wrapping: JournalLogHandler(identifier: "lulld")) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return EscapingLogHandler(wrapping: handler)
        }
        let logger = Logger(label: "lulld")
        do {
            try await Daemon.run(options.settings(with: daemonConfig, from: configFile), logger: logger)
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("lulld: \(error)\n".utf8))
            throw ExitCode(error.exitStatus.rawValue)
        }
    }
}

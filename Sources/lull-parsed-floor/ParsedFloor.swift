// `lull-submit-floor` with its arguments parsed by swift-argument-parser: a command tree of
// lullctl's shape (its 14 commands, `submit` with its four kinds, and `submit fetch` with the same
// argument, options and flags, declared alike, in the same five groups), the same request and the
// same line, with no Foundation of its own and no checks. lull-bench times it beside lullctl and
// tsp: the floor of any lullctl whose commands are parsed by swift-argument-parser. The commands
// off the `submit fetch` path are names only; the parser walks the options of the path alone.

import ArgumentParser
import SubmitFloor

/// Stand-ins for lullctl's value types: each parsed by a transform, as lullctl's are.
struct Duration { var seconds: Int }
struct ByteCount { var bytes: Int }
struct Percent { var value: Int }
struct Time { var text: String }
enum Choice: String { case one, two }

func number(_ text: String) throws -> Int {
    guard let value = Int(text) else { throw ValidationError("not a number: \(text)") }
    return value
}

struct JobOptions: ParsableArguments {
    @Option(name: .long, help: "A label.") var label: String?
    @Option(name: .customLong("class"), help: "The priority class.") var jobClass: String?
    @Option(name: [.customShort("H"), .long], help: ArgumentHelp("A header.", valueName: "header"))
    var header: [String] = []
    @Option(name: [.short, .long], help: ArgumentHelp("Credentials.", valueName: "name[:password]")) var user: String?
    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Authorities.", valueName: "path")) var caFile: String?
    @OptionGroup(title: "Scheduling") var scheduling: SchedulingOptions
    @OptionGroup(title: "Retries, timeouts and rate") var transfer: TransferOptions
}

struct SchedulingOptions: ParsableArguments {
    @Option(name: .long, help: "The network.", transform: { try choice($0) }) var network: Choice?
    @Flag(name: .customLong("requires-ac"), help: "AC power.") var requiresAC = false
    @Flag(name: .customLong("requires-idle"), help: "Idle.") var requiresIdle = false
    @Option(name: .customLong("min-battery"), help: "Charge.", transform: { Percent(value: try number($0)) })
    var minBattery: Percent?
    @Option(name: .customLong("not-before"), parsing: .unconditional, help: "Start.", transform: { Time(text: $0) })
    var notBefore: Time?
    @Option(name: .long, parsing: .unconditional, help: "Deadline.", transform: { Time(text: $0) }) var deadline: Time?
    @Option(name: .customLong("on-deadline"), help: "Action.", transform: { try choice($0) }) var onDeadline: Choice?
    @Option(name: .long, help: "Period.", transform: { Duration(seconds: try number($0)) }) var every: Duration?
    @Option(name: .long, help: "Flex.", transform: { Duration(seconds: try number($0)) }) var flex: Duration?
    @Option(name: .long, help: "Jitter.", transform: { Duration(seconds: try number($0)) }) var jitter: Duration?
    @Option(name: .customLong("max-every"), help: "Longest period.", transform: { Duration(seconds: try number($0)) })
    var maxEvery: Duration?
    @Option(name: .customLong("on-complete-unit"), help: "A unit.") var onCompleteUnit: String?
}

struct TransferOptions: ParsableArguments {
    @Option(name: .customLong("max-attempts"), help: "Attempts.") var maxAttempts: Int?
    @Option(name: .customLong("retry-delay"), help: "Delay.", transform: { Duration(seconds: try number($0)) })
    var retryDelay: Duration?
    @Option(name: .customLong("retry-max-delay"), help: "Most.", transform: { Duration(seconds: try number($0)) })
    var retryMaxDelay: Duration?
    @Option(name: .customLong("connect-timeout"), help: "Connect.", transform: { Duration(seconds: try number($0)) })
    var connectTimeout: Duration?
    @Option(name: .customLong("idle-timeout"), help: "Idle.", transform: { Duration(seconds: try number($0)) })
    var idleTimeout: Duration?
    @Option(name: .long, help: "Timeout.", transform: { Duration(seconds: try number($0)) }) var timeout: Duration?
    @Option(name: .customLong("max-rate"), help: "Rate.", transform: { ByteCount(bytes: try number($0)) })
    var maxRate: ByteCount?
}

struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The socket.", valueName: "path")) var socket: String?
    @Flag(name: .long, help: "System instance.") var system = false
    @Flag(name: .customLong("user-instance"), help: "User instance.") var userInstance = false
    @Option(name: .customLong("call-timeout"), help: "Seconds.") var callTimeout: Double?
}

struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "JSON.") var json = false
}

func choice(_ text: String) throws -> Choice {
    guard let value = Choice(rawValue: text) else { throw ValidationError("not a choice: \(text)") }
    return value
}

struct SubmitFetch: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch", abstract: "Download a URL into a file.")
    @Argument(help: "The URL.") var url: String
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where.", valueName: "path")) var output: String
    @Option(help: ArgumentHelp("SHA-256.", valueName: "hex")) var sha256: String?
    @Option(name: .customLong("expected-size"), help: "Size.", transform: { ByteCount(bytes: try number($0)) })
    var expectedSize: ByteCount?
    @Option(name: .customLong("max-size"), help: "Most.", transform: { ByteCount(bytes: try number($0)) })
    var maxSize: ByteCount?
    @Option(help: ArgumentHelp("Mode.", valueName: "octal")) var mode: String?
    @OptionGroup var job: JobOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() throws {
        guard let socket = connection.socket else { throw ValidationError("give --socket") }
        submitFetch(url: url, destination: output, socket: socket)
    }
}

// Commands of lullctl's tree that are not on the measured path: their names only.
struct List: ParsableCommand { static let configuration = CommandConfiguration(commandName: "list") }
struct Show: ParsableCommand { static let configuration = CommandConfiguration(commandName: "show") }
struct Explain: ParsableCommand { static let configuration = CommandConfiguration(commandName: "explain") }
struct Simulate: ParsableCommand { static let configuration = CommandConfiguration(commandName: "simulate") }
struct Cancel: ParsableCommand { static let configuration = CommandConfiguration(commandName: "cancel") }
struct Pause: ParsableCommand { static let configuration = CommandConfiguration(commandName: "pause") }
struct Resume: ParsableCommand { static let configuration = CommandConfiguration(commandName: "resume") }
struct Status: ParsableCommand { static let configuration = CommandConfiguration(commandName: "status") }
struct Events: ParsableCommand { static let configuration = CommandConfiguration(commandName: "events") }
struct Watch: ParsableCommand { static let configuration = CommandConfiguration(commandName: "watch") }
struct Top: ParsableCommand { static let configuration = CommandConfiguration(commandName: "top") }
struct Reload: ParsableCommand { static let configuration = CommandConfiguration(commandName: "reload") }
struct Logs: ParsableCommand { static let configuration = CommandConfiguration(commandName: "logs") }
struct Push: ParsableCommand { static let configuration = CommandConfiguration(commandName: "push") }
struct Upload: ParsableCommand { static let configuration = CommandConfiguration(commandName: "upload") }
struct Run: ParsableCommand { static let configuration = CommandConfiguration(commandName: "run") }

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        subcommands: [SubmitFetch.self, Push.self, Upload.self, Run.self]
    )
}

@main
struct ParsedFloor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lull-parsed-floor",
        version: "0",
        subcommands: [
            Submit.self, List.self, Show.self, Explain.self, Simulate.self,
            Cancel.self, Pause.self, Resume.self, Status.self, Events.self,
            Watch.self, Top.self, Reload.self, Logs.self,
        ]
    )
}

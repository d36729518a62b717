// `lull-submit-floor` with its arguments parsed by swift-argument-parser: a command tree of
// lullctl's shape (its 14 commands, `submit` with its four kinds, and `submit fetch` with the same
// argument and 34 options and flags in the same five groups, declared as lullctl declares them:
// the same names, value names, completions, transforms, unconditional parsing and flags), the
// same request and the same line. lull-bench times it beside lullctl and tsp: the floor of any
// lullctl whose commands are parsed by swift-argument-parser. What it leaves out only adds to
// lullctl's time: its own code behind the values (stand-in types here), the `validate()` of two
// option groups, an `async` root, lullctl's reordering of global options and its `setlocale`,
// Foundation, and the checks before the request. The commands off the `submit fetch` path are
// names only; the parser walks the options of the path alone.

import ArgumentParser
import SubmitFloor

/// Stand-ins for lullctl's value types: each parsed by a transform, as lullctl's are.
struct DurationValue { var seconds: Int }
struct ByteCountValue { var bytes: Int }
struct PercentValue { var value: Int }
struct TimeValue { var text: String }
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
    @Option(
        name: .long,
        help: ArgumentHelp("The network.", valueName: "network"),
        completion: .list(["one", "two"]),
        transform: { try choice($0) }
    ) var network: Choice?
    @Flag(name: .customLong("requires-ac"), help: "AC power.") var requiresAC = false
    @Flag(name: .customLong("requires-idle"), help: "Idle.") var requiresIdle = false
    @Option(
        name: .customLong("min-battery"),
        help: ArgumentHelp("Charge.", valueName: "percent"),
        transform: { PercentValue(value: try number($0)) }
    )
    var minBattery: PercentValue?
    @Option(
        name: .customLong("not-before"),
        parsing: .unconditional,
        help: ArgumentHelp("Start.", valueName: "time"),
        transform: { TimeValue(text: $0) }
    )
    var notBefore: TimeValue?
    @Option(
        name: .long,
        parsing: .unconditional,
        help: ArgumentHelp("Deadline.", valueName: "time"),
        transform: { TimeValue(text: $0) }
    ) var deadline: TimeValue?
    @Option(
        name: .customLong("on-deadline"),
        help: ArgumentHelp("Action.", valueName: "action"),
        completion: .list(["one", "two"]),
        transform: { try choice($0) }
    ) var onDeadline: Choice?
    @Option(
        name: .long,
        help: ArgumentHelp("Period.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    ) var every: DurationValue?
    @Option(
        name: .long,
        help: ArgumentHelp("Flex.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    ) var flex: DurationValue?
    @Option(
        name: .long,
        help: ArgumentHelp("Jitter.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    ) var jitter: DurationValue?
    @Option(
        name: .customLong("max-every"),
        help: ArgumentHelp("Longest period.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    )
    var maxEvery: DurationValue?
    @Option(name: .customLong("on-complete-unit"), help: ArgumentHelp("A unit.", valueName: "unit")) var onCompleteUnit:
        String?
}

struct TransferOptions: ParsableArguments {
    @Option(name: .customLong("max-attempts"), help: ArgumentHelp("Attempts.", valueName: "count")) var maxAttempts:
        Int?
    @Option(
        name: .customLong("retry-delay"),
        help: ArgumentHelp("Delay.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    )
    var retryDelay: DurationValue?
    @Option(
        name: .customLong("retry-max-delay"),
        help: ArgumentHelp("Most.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    )
    var retryMaxDelay: DurationValue?
    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp("Connect.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    )
    var connectTimeout: DurationValue?
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Idle.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    )
    var idleTimeout: DurationValue?
    @Option(
        name: .long,
        help: ArgumentHelp("Timeout.", valueName: "duration"),
        transform: { DurationValue(seconds: try number($0)) }
    ) var timeout: DurationValue?
    @Option(
        name: .customLong("max-rate"),
        help: ArgumentHelp("Rate.", valueName: "rate"),
        transform: { ByteCountValue(bytes: try number($0)) }
    )
    var maxRate: ByteCountValue?
}

struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The socket.", valueName: "path")) var socket: String?
    @Flag(name: .long, help: "System instance.") var system = false
    @Flag(name: .customLong("user-instance"), help: "User instance.") var userInstance = false
    @Option(name: .customLong("call-timeout"), help: ArgumentHelp("Seconds.", valueName: "seconds")) var callTimeout:
        Double?
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
    @Option(
        name: .customLong("expected-size"),
        help: ArgumentHelp("Size.", valueName: "size"),
        transform: { ByteCountValue(bytes: try number($0)) }
    )
    var expectedSize: ByteCountValue?
    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp("Most.", valueName: "size"),
        transform: { ByteCountValue(bytes: try number($0)) }
    )
    var maxSize: ByteCountValue?
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

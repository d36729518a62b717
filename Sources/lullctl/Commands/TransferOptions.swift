import ArgumentParser
import LullAPI
import LullClient
import LullCore

/// How hard the daemon tries: attempts, the wait between them and the time limits of one
/// attempt. Flags left out keep the class's and the daemon's settings; the daemon checks the
/// ranges and names the field it refuses.
struct TransferOptions: ParsableArguments {
    @Option(
        name: .customLong("max-attempts"),
        help: ArgumentHelp(
            "Give up after this many attempts, from 1 to 100 (the first attempt counts).",
            valueName: "count"
        )
    )
    var maxAttempts: Int?

    @Option(
        name: .customLong("retry-delay"),
        help: ArgumentHelp(
            "The backoff scale: a retry waits a random time up to this, doubled after each failed attempt (\(DurationArgument.forms)).",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var retryDelay: DurationArgument?

    @Option(
        name: .customLong("retry-max-delay"),
        help: ArgumentHelp(
            "The most a retry waits (a server's Retry-After may ask for longer), at most 1d.",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var retryMaxDelay: DurationArgument?

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp(
            "How long one attempt may take to connect to the server (or proxy), at most 30d.",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var connectTimeout: DurationArgument?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "How long one attempt may go without a byte moving, at most 30d (while waiting for a response, the daemon's idle_timeout applies if shorter).",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var idleTimeout: DurationArgument?

    @Option(
        name: .long,
        help: ArgumentHelp("How long one attempt may take in all, at most 30d.", valueName: "duration"),
        transform: { try DurationArgument(parsing: $0) }
    )
    var timeout: DurationArgument?

    @Option(
        name: .customLong("max-rate"),
        help: ArgumentHelp(
            "The most bytes per second the job moves, down and up (its class's and the daemon's limits apply too): a number of bytes, or one with a unit K, M or G, binary (powers of 1024: 2M is 2 MiB/s), from 1K to 1T.",
            valueName: "rate"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var maxRate: ByteCountArgument?

    /// Sets the submission's `retry` and `timeouts` objects and its rate from the flags given.
    func apply(to submission: inout JobSubmission) {
        if let maxRate { submission.maxBytesPerSecond = maxRate.bytes }
        if maxAttempts != nil || retryDelay != nil || retryMaxDelay != nil {
            submission.retry = RetrySettings(
                maxAttempts: maxAttempts,
                baseSeconds: retryDelay?.timeInterval,
                capSeconds: retryMaxDelay?.timeInterval
            )
        }
        if connectTimeout != nil || idleTimeout != nil || timeout != nil {
            submission.timeouts = TimeoutSettings(
                connectSeconds: connectTimeout?.timeInterval,
                idleSeconds: idleTimeout?.timeInterval,
                totalSeconds: timeout?.timeInterval
            )
        }
    }
}

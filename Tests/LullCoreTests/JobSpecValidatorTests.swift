import LullCore
import Testing

extension JobSpecValidator {
    /// The refusal of `spec`, or nil when it is valid.
    func refusal(of spec: JobSpec) -> ValidationError? {
        do {
            try validate(spec)
            return nil
        } catch {
            return error
        }
    }
}

@Suite struct JobSpecValidatorTests {
    let validator = JobSpecValidator(limits: SubmissionLimits(maxPushBodyBytes: 16))

    func error(_ spec: JobSpec) -> ValidationError? { validator.refusal(of: spec) }

    @Test func acceptsAPlainFetch() throws {
        try validator.validate(JobSpec(.fetch(FetchJob(url: "https://example.org/a", destination: "/tmp/a"))))
    }

    /// `network: "none"` is a run job's: a transfer always needs the network.
    @Test func onlyARunJobMayNeedNoNetwork() throws {
        let none = JobConstraints(network: .notNeeded)
        try validator.validate(JobSpec(.run(RunJob(argv: ["true"])), constraints: none))
        var fetch = JobSpec(.fetch(FetchJob(url: "https://example.org/a", destination: "/tmp/a")))
        fetch.constraints = none
        let refused = try #require(error(fetch))
        #expect(refused.code == .invalidValue && refused.field == "network")
        #expect(
            refused.message
                == "network \"none\" is for run jobs whose command needs no network; a fetch always does: give any, unmetered or not_cellular"
        )
    }

    @Test(arguments: ["ftp://example.org/a", "file:///etc/passwd", "example.org/a", "http://"])
    func refusesNonHTTPURLs(url: String) {
        let failure = error(JobSpec(.fetch(FetchJob(url: url, destination: "/tmp/a"))))
        #expect(failure?.field == "url")
        #expect(failure?.code == .invalidValue)
    }

    /// A URL without a scheme is answered with the URL it probably meant, not with "scheme
    /// localhost is not supported".
    @Test(arguments: ["localhost:8000/f", "example.org/a", "127.0.0.1:9/x", "a.org/x?u=http://b", "http:/host/x"])
    func aURLWithoutASchemeGetsTheFixInTheMessage(url: String) {
        let failure = error(JobSpec(.fetch(FetchJob(url: url, destination: "/tmp/a"))))
        #expect(failure?.field == "url")
        #expect(failure?.message == "url \"\(url)\" has no scheme; write http://\(url) or https://\(url)")
    }

    /// The host keys per-host limits and proxy decisions: lowercased, without user info or port.
    @Test(
        arguments: [
            ("https://Example.ORG/a", "example.org"), ("http://user:pw@Host.example:8080/x?q=1", "host.example"),
            ("http://[::1]:9/a", "::1"), ("http://h?x", "h"), ("http://h#f", "h"), ("example.org/a", nil),
        ] as [(String, String?)]
    )
    func hostOfTheURL(url: String, host: String?) {
        #expect(JobSpec(.fetch(FetchJob(url: url, destination: "/tmp/a"))).host == host)
    }

    @Test func refusesRelativeAndDirectoryDestinations() {
        #expect(error(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "tmp/a"))))?.field == "destination")
        #expect(error(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/"))))?.field == "destination")
        #expect(
            error(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/../etc/x"))))?.field == "destination"
        )
    }

    @Test func statesThePushBodyLimit() {
        let failure = error(JobSpec(.push(PushJob(url: "http://h/a", body: Array(repeating: 1, count: 17)))))
        #expect(failure?.code == .tooLarge)
        #expect(failure?.field == "body")
        #expect(failure?.message.contains("16 bytes") == true)
    }

    @Test func refusesUnknownClassesNamingTheKnownOnes() {
        let failure = error(JobSpec(.push(PushJob(url: "http://h/a")), jobClass: "turbo"))
        #expect(failure?.field == "class")
        #expect(failure?.message.contains("background") == true)
    }

    @Test func byteCountsMustNotBeNegative() {
        #expect(error(JobSpec(.push(PushJob(url: "http://h/a", expectedBytesUp: -1))))?.field == "expected_bytes_up")
        #expect(
            error(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/a", maxBytes: -1))))?.field
                == "max_bytes"
        )
    }

    @Test func sha256IsSixtyFourASCIIHexDigits() throws {
        let digest = String(repeating: "aB", count: 32)
        try validator.validate(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/a", sha256: digest))))
        for bad in [
            String(repeating: "\u{FF41}", count: 64), String(repeating: "a", count: 63),
            String(repeating: "g", count: 64),
        ] {
            #expect(
                error(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/a", sha256: bad))))?.field
                    == "sha256"
            )
        }
    }

    @Test func refusesMethodsThatDoNotFitTheKind() {
        #expect(error(JobSpec(.push(PushJob(url: "http://h/a", method: "GET"))))?.field == "method")
        #expect(error(JobSpec(.upload(UploadJob(url: "http://h/a", source: "/a", method: "PATCH"))))?.field == "method")
    }
}

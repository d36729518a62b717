import LullCore
import Testing

/// Text clients choose cannot forge log records or reach a terminal as escape sequences: the
/// validator refuses control characters, and what reaches a log anyway is escaped.
@Suite struct UntrustedTextTests {
    let validator = JobSpecValidator(limits: SubmissionLimits())

    func error(_ spec: JobSpec) -> ValidationError? { validator.refusal(of: spec) }

    @Test(arguments: [
        ("http://h/a\nnotice lulld: forged", "U+000A"), ("http://h/\u{1B}[2Jx", "U+001B"),
        ("http://h/a\u{0}b", "U+0000"),
        ("http://h/a\u{85}b", "U+0085"), ("http://h/a\u{7F}", "U+007F"),
    ])
    func urlsWithControlCharactersAreRefusedByName(url: String, name: String) throws {
        let failure = try #require(error(JobSpec(.fetch(FetchJob(url: url, destination: "/srv/a")))))
        #expect(failure.field == "url")
        #expect(failure.message.contains(name), "\(failure.message)")
        #expect(UntrustedText.firstControl(in: failure.message) == nil, "the message echoes no control character")
    }

    @Test func everyTextFieldIsChecked() {
        let url = "http://h/a"
        #expect(
            error(JobSpec(.fetch(FetchJob(url: url, destination: "/srv/a")), label: "x\u{1B}]0;pwned\u{7}"))?.field
                == "label"
        )
        #expect(error(JobSpec(.fetch(FetchJob(url: url, destination: "/srv/a\nb"))))?.field == "destination")
        #expect(error(JobSpec(.upload(UploadJob(url: url, source: "/srv/\u{0}a"))))?.field == "source")
        #expect(error(JobSpec(.push(PushJob(url: url, contentType: "text/plain\r\nX: y"))))?.field == "content_type")
        #expect(error(JobSpec(.push(PushJob(url: url, idempotencyKey: "k\u{9B}1m"))))?.field == "idempotency_key")
        #expect(error(JobSpec(.push(PushJob(url: url, headers: ["X-A": "v\u{1B}[31m"]))))?.field == "headers")
        #expect(
            error(JobSpec(.push(PushJob(url: url, headers: ["X-A": "a\tb"])))) == nil,
            "HTTP allows a tab in a value"
        )
        #expect(error(JobSpec(.fetch(FetchJob(url: url, destination: "/srv/ünïcode ✓")), label: "nightly — ☾")) == nil)
    }

    /// A class or unit name is checked against a list, not for control characters; its refusal
    /// names it escaped, so it reaches no terminal as an escape sequence.
    @Test func refusedNamesAreEchoedEscaped() throws {
        let fetch = FetchJob(url: "http://h/a", destination: "/srv/a")
        let byClass = try #require(error(JobSpec(.fetch(fetch), jobClass: "a\u{1B}[2Jb")))
        #expect(byClass.field == "class" && byClass.message.contains("a\\x1b[2Jb"), "\(byClass.message)")
        #expect(UntrustedText.firstControl(in: byClass.message) == nil)
        let byUnit = try #require(error(JobSpec(.fetch(fetch), onCompleteUnit: "x\u{1B}]0;t\u{7}.service")))
        #expect(byUnit.field == "on_complete_unit", "\(byUnit)")
        #expect(UntrustedText.firstControl(in: byUnit.message) == nil, "\(byUnit.message)")
    }

    @Test func escapingKeepsOneRecordOnOneLine() {
        #expect(UntrustedText.escaped("plain text ✓") == "plain text ✓")
        #expect(UntrustedText.escaped("a\nnotice lulld: forged") == "a\\nnotice lulld: forged")
        #expect(UntrustedText.escaped("\u{1B}[2J\r\t\u{0}\u{7F}\u{85}") == "\\x1b[2J\\r\\t\\0\\x7f\\u{85}")
        #expect(UntrustedText.escaped("é\u{1}") == "é\\x01")
    }

    /// Credentials in a URL would be shown in every view, event and log line: refused, with
    /// the way to send them instead, and without echoing the password.
    @Test(arguments: [
        "http://alice:S3cret@127.0.0.1:9000/f", "https://alice@example.org/f", "http://alice:S3cret@h/f?x=1",
    ])
    func urlsWithCredentialsAreRefused(url: String) throws {
        let failure = try #require(error(JobSpec(.fetch(FetchJob(url: url, destination: "/srv/a")))))
        #expect(failure.field == "url")
        #expect(failure.message.contains("--user alice:PASSWORD"), "\(failure.message)")
        #expect(failure.message.contains("Authorization"))
        #expect(!failure.message.contains("S3cret"))
    }

    @Test func aURLWithAnAtInItsPathIsNotCredentials() {
        #expect(error(JobSpec(.fetch(FetchJob(url: "http://h/users/@alice/feed", destination: "/srv/a")))) == nil)
    }
}

/// Under systemd's PrivateTmp= the daemon's /tmp is not its clients' /tmp.
@Suite struct PrivateDirectoriesTests {
    static let mountInfo = """
        22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
        25 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
        841 22 254:1 /tmp/systemd-private-9f1c2e-lulld.service-Ab12Cd/tmp /tmp rw,relatime shared:433 master:1 - ext4 /dev/vda1 rw
        842 22 254:1 /var/tmp/systemd-private-9f1c2e-lulld.service-Xy34Zw/tmp /var/tmp rw,relatime shared:434 master:1 - ext4 /dev/vda1 rw
        900 22 0:50 / /srv/my\\040files rw - tmpfs tmpfs rw
        901 22 0:51 /systemd-private-aa-lulld.service-bb/tmp /srv/odd\\040place rw - tmpfs tmpfs rw
        """

    @Test func findsTheServicesPrivateMounts() {
        let found = PrivateDirectories(mountInfo: Self.mountInfo)
        #expect(found.paths == ["/srv/odd place", "/tmp", "/var/tmp"])
        #expect(found.containing("/tmp/x.bin") == "/tmp")
        #expect(found.containing("/var/tmp/a/b") == "/var/tmp")
        #expect(found.containing("/tmpfiles/x") == nil)
        #expect(found.containing("//tmp/x") == "/tmp" && found.containing("/./tmp//x") == "/tmp")
        #expect(found.containing("/srv/my files/x") == nil)
        #expect(PrivateDirectories(mountInfo: "22 1 254:1 / / rw - ext4 /dev/vda1 rw\n").paths.isEmpty)
    }

    @Test func theValidatorRefusesThemWithTheReason() throws {
        let validator = JobSpecValidator(
            limits: SubmissionLimits(),
            privateDirectories: PrivateDirectories(["/tmp", "/var/tmp"])
        )
        for (spec, field) in [
            (JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/x.bin"))), "destination"),
            (JobSpec(.upload(UploadJob(url: "http://h/a", source: "/var/tmp/report.csv"))), "source"),
        ] {
            do {
                try validator.validate(spec)
                Issue.record("\(field) under a private directory was accepted")
            } catch {
                #expect(error.field == field)
                #expect(
                    error.message.contains("PrivateTmp=yes") && error.message.contains("ReadWritePaths="),
                    "\(error.message)"
                )
            }
        }
        try validator.validate(JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/srv/tmp/x.bin"))))
    }
}

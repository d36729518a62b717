import Foundation
import LullAPI
import LullCore
import LullTestSupport
import PropertyBased
import Testing

@testable import LullDaemon

/// Property-based fuzzing of the two parsers that read what people and programs hand the daemon:
/// the job-spec decoder (JSON → `JobSubmission` → `JobSpec` → validation) and the config parser
/// (TOML → `DaemonConfig`). Inputs are valid documents mutated by a seeded generator; whatever
/// comes out, the parser must return or throw its own error with a message (and a field where
/// the error is about one), never crash, never hang.
@Suite struct DecoderFuzzTests {
    static let cases = TestScale.pick(quick: 3000, long: 100_000)

    static let submissions: [String] = [
        #"{"kind":"fetch","url":"http://127.0.0.1:8080/a.bin","destination":"/tmp/a.bin","sha256":"\#(String(repeating: "ab", count: 32))","label":"x","class":"bulk","expected_bytes":1048576,"max_bytes":2097152,"headers":{"Authorization":"Bearer t"},"retry":{"max_attempts":3,"base_seconds":1.5},"timeouts":{"idle_seconds":10,"total_seconds":60},"network":"unmetered","requires_ac":true,"min_battery":40,"not_before":"2030-01-01T00:00:00Z","deadline":"2030-01-02T00:00:00+02:00","on_deadline":"expire"}"#,
        #"{"kind":"push","url":"https://hooks.example/x","method":"PUT","content_type":"application/json","body":"{\"a\":1}","idempotency_key":"k-1"}"#,
        #"{"kind":"push","url":"http://127.0.0.1/b","body_base64":"AAECAwQ="}"#,
        #"{"kind":"upload","url":"http://127.0.0.1/up","source":"/tmp/s.bin","protocol":"multipart","form_field":"file","expected_bytes_up":10}"#,
        #"{"kind":"upload","url":"http://127.0.0.1/files","source":"/tmp/s.bin","protocol":"tus"}"#,
    ]

    /// Tokens that make parsers think: wrong types, extremes, escapes, structure.
    static let tokens: [String] = [
        "null", "true", "-1", "0", "1e309", "-0.0", "9223372036854775808", "\"\"", "[]", "{}", "\"\\u0000\"",
        "\"\\ud800\"", "\"../../etc/passwd\"", "\"ftp://x\"", "\"http://\"", "\"/\"", "\"\\n\"", ",", ":", "\"", "{",
        "}",
        "[", "]", "\"kind\"", "\"url\"", String(repeating: "9", count: 400),
        "\"" + String(repeating: "a", count: 5000) + "\"",
        "\"2030-13-45T99:99:99Z\"", "NaN", "\u{FEFF}", "\u{00}", "\"é\"",
    ]

    static let validator = JobSpecValidator(limits: SubmissionLimits(), knownClasses: Set(JobClassName.builtIn))

    @Test func theJobSpecDecoderAnswersEveryMutationWithANamedError() async {
        await propertyCheck(count: Self.cases, input: Gen.uint64()) { seed in
            var random = SeededGenerator(seed: seed)
            let base = Self.submissions[Int.random(in: 0..<Self.submissions.count, using: &random)]
            let mutated = Mutator.mutate(base, tokens: Self.tokens, random: &random)
            let problem = Self.submissionProblem(Data(mutated.utf8))
            #expect(problem == nil, "seed \(seed): \(problem ?? "") for \(mutated.prefix(300))")
        }
    }

    @Test func theBatchDecoderNamesTheJobAndField() async {
        await propertyCheck(count: Self.cases / 3, input: Gen.uint64()) { seed in
            var random = SeededGenerator(seed: seed)
            let jobs = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                Self.submissions[Int.random(in: 0..<Self.submissions.count, using: &random)]
            }
            let mutated = Mutator.mutate(
                #"{"jobs":["# + jobs.joined(separator: ",") + "]}",
                tokens: Self.tokens,
                random: &random
            )
            do throws(ValidationError) {
                _ = try WireDecoding.decode(BatchSubmission.self, from: Data(mutated.utf8))
            } catch {
                #expect(!error.message.isEmpty, "seed \(seed)")
                if error.code != .malformedJSON { #expect(error.field != nil, "seed \(seed): \(error.message)") }
            }
        }
    }

    /// nil when the pipeline behaved: decoded and validated, or refused with a named error.
    static func submissionProblem(_ data: Data) -> String? {
        do throws(ValidationError) {
            let submission = try WireDecoding.decode(JobSubmission.self, from: data)
            let spec = try submission.spec()
            try validator.validate(spec)
            return nil
        } catch {
            if error.message.isEmpty { return "empty message for \(error.code)" }
            if error.code != .malformedJSON && error.field == nil {
                return "\(error.code) without a field: \(error.message)"
            }
            return nil
        }
    }

    static let configSeed: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/lull.toml").path
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    static let tomlTokens: [String] = [
        "=", "[", "]", "[[x]]", "[classes.]", "[classes.\"a b\"]", "\"", "'''", "\"\"\"", "#", "\n", "-1", "0", "1e999",
        "inf", "nan", "true", "\"30%\"", "\"25:00-99:99\"", "\"\\u0000\"", "{ a = 1 }", "[1, \"a\"]",
        "1979-05-27T07:32:00Z",
        String(repeating: "x", count: 3000), "max_concurrent", "max_per_host", "window", "min_battery", "\u{FEFF}",
    ]

    /// Headers the bundled toml++ asserts on (found by the fuzzer below): refused with the line.
    @Test(arguments: ["[", "[[[1]]]", "[[[a]]", "[[=", "[=x]", "[.x]", "[ #", "[[\u{1}]]", "[\r\n", "\n\n  [[ ,]]"])
    func headersTheTOMLParserTripsOverAreRefusedWithTheirLine(header: String) throws {
        do {
            _ = try ConfigLoader.parse("[limits]\nmax_concurrent = 2\n" + header + "\n", file: "bad.toml")
            Issue.record("\(header.debugDescription) was accepted")
        } catch {
            #expect(error.problems.first?.line ?? 0 >= 3, "\(error)")
            #expect(!error.problems.isEmpty)
        }
    }

    /// TOMLKit lists a quoted key holding `\u0000` cut short at it, and the cut key finds no
    /// value: found by the mutation test below as a crash (seed not kept: the run crashed).
    @Test(arguments: ["daemon", "limits", "transfers", "retry", "sensors", "hooks", "run", "classes.bulk"])
    func aKeyHoldingANULIsAProblemNotACrash(section: String) throws {
        do throws(ConfigError) {
            _ = try ConfigLoader.parse("[\(section)]\n\"max_concurrent\\u0000x\" = 1\n", file: "nul.toml")
            Issue.record("a key holding \\u0000 was accepted in [\(section)]")
        } catch {
            #expect(error.problems.contains { $0.message.contains("holds \\u0000") }, "\(error)")
        }
    }

    @Test func theConfigParserAnswersEveryMutationWithALocatedProblem() async throws {
        #expect(!Self.configSeed.isEmpty, "examples/lull.toml must be readable")
        _ = try ConfigLoader.parse(Self.configSeed, file: "examples/lull.toml")
        await propertyCheck(count: Self.cases / 3, input: Gen.uint64()) { seed in
            var random = SeededGenerator(seed: seed)
            let mutated = Mutator.mutate(Self.configSeed, tokens: Self.tomlTokens, random: &random)
            do throws(ConfigError) {
                _ = try ConfigLoader.parse(mutated, file: "fuzz.toml")
            } catch {
                #expect(!error.problems.isEmpty, "seed \(seed): an error without problems")
                for problem in error.problems {
                    #expect(!problem.message.isEmpty, "seed \(seed)")
                    #expect(problem.file == "fuzz.toml", "seed \(seed)")
                }
            }
        }
    }
}

/// Seeded mutations of a text: delete, duplicate, insert a token, replace a span with a token,
/// flip a byte, truncate. A few at a time, so most results are still nearly valid and reach
/// deep into the parser instead of failing at the first byte.
enum Mutator {
    static func mutate(_ text: String, tokens: [String], random: inout SeededGenerator) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            let span = min(bytes.count - at, Int.random(in: 1...12, using: &random))
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes.removeSubrange(at..<(at + span))
            case 1: bytes.insert(contentsOf: bytes[at..<(at + span)], at: at)
            case 2:
                bytes.insert(contentsOf: Array(tokens[Int.random(in: 0..<tokens.count, using: &random)].utf8), at: at)
            case 3:
                bytes.replaceSubrange(
                    at..<(at + span),
                    with: Array(tokens[Int.random(in: 0..<tokens.count, using: &random)].utf8)
                )
            case 4: bytes[at] = UInt8.random(in: 0...255, using: &random)
            default: bytes.removeSubrange(at...)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

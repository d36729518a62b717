import Foundation
import LullAPI
import LullCore
import Testing

@testable import LullDaemon

/// `[sensors] idle_after`, `[classes.NAME] requires_idle` and the job field `requires_idle`:
/// what they set, and how a bad value is refused, naming the key or field and the range.
@Suite struct IdleConfigTests {
    @Test func idleAfterDefaultsToFiveMinutesAndIsCitedWhereSet() throws {
        let defaults = try ConfigLoader.parse("", file: "t.toml")
        #expect(defaults.policy.idleAfter == ConfiguredLimit(300))
        let set = try ConfigLoader.parse("[sensors]\nidle_after = 120\n", file: "t.toml")
        #expect(set.policy.idleAfter.value == 120)
        #expect(set.policy.idleAfter.origin == ConfigOrigin(file: "t.toml", line: 2, key: "sensors.idle_after"))
        #expect(try ConfigLoader.parse("[sensors]\nidle_after = 0.5\n", file: "t.toml").policy.idleAfter.value == 0.5)
    }

    @Test func aBadIdleAfterIsRefusedNamingTheKeyAndItsRange() {
        #expect(
            ConfigLoader.refusal("[sensors]\nidle_after = -1\n")?.contains(
                "t.toml:2: sensors.idle_after: -1.0 is out of range 0.0...86400.0 seconds"
            ) == true,
            "\(ConfigLoader.refusal("[sensors]\nidle_after = -1\n") ?? "accepted")"
        )
        #expect(ConfigLoader.refusal("[sensors]\nidle_after = 86401\n")?.contains("sensors.idle_after") == true)
        #expect(
            ConfigLoader.refusal("[sensors]\nidle_after = \"5m\"\n")?.contains(
                "sensors.idle_after: expected a number (seconds)"
            )
                == true
        )
        #expect(
            ConfigLoader.refusal("[sensors]\nidle_aftr = 5\n")?.contains("idle_after") == true,
            "the known keys are listed"
        )
    }

    @Test func aClassRequiresIdle() throws {
        let config = try ConfigLoader.parse("[classes.nightly]\nrequires_idle = true\n", file: "t.toml")
        let nightly = try #require(config.policy.classPolicy(named: "nightly"))
        #expect(nightly.requiresIdle)
        #expect(nightly.origin(of: .requiresIdle)?.key == "classes.nightly.requires_idle")
        #expect(config.policy.classPolicy(named: "background")?.requiresIdle == false, "no built-in class does")
        #expect(
            ConfigLoader.refusal("[classes.nightly]\nrequires_idle = \"yes\"\n")?.contains(
                "classes.nightly.requires_idle: expected true or false"
            ) == true
        )
    }

    @Test func theJobFieldReachesTheSpecAndAbsentStaysAbsent() throws {
        let body = #"{"kind":"fetch","url":"https://example.org/f","destination":"/srv/f","requires_idle":true}"#
        let submission = try WireDecoding.decode(JobSubmission.self, from: Data(body.utf8))
        #expect(submission.requiresIdle == true)
        #expect(try submission.spec().constraints == JobConstraints(requiresIdle: true))

        let plain = #"{"kind":"fetch","url":"https://example.org/f","destination":"/srv/f"}"#
        let none = try WireDecoding.decode(JobSubmission.self, from: Data(plain.utf8))
        #expect(try none.spec().constraints == nil)
        let encoded = String(decoding: try WireJSON.encoder().encode(none), as: UTF8.self)
        #expect(!encoded.contains("requires_idle"))

        let wrong = #"{"kind":"fetch","url":"https://example.org/f","destination":"/srv/f","requires_idle":"yes"}"#
        #expect {
            try WireDecoding.decode(JobSubmission.self, from: Data(wrong.utf8))
        } throws: { error in
            "\(error)".contains("requires_idle")
        }
    }

    @Test func aStoredSpecWithoutTheFieldReadsBackAndFalseIsNotWritten() throws {
        let old = #"{"network":"any","requiresAC":true}"#
        let constraints = try JSONDecoder().decode(JobConstraints.self, from: Data(old.utf8))
        #expect(constraints == JobConstraints(requiresAC: true))
        let written = String(decoding: try JSONEncoder().encode(constraints), as: UTF8.self)
        #expect(!written.contains("requiresIdle"))
        let idle = String(decoding: try JobConstraints(requiresIdle: true).jsonBytes(), as: UTF8.self)
        #expect(idle.contains(#""requiresIdle":true"#))
    }
}

/// `[sensors] bus`: "system" or an address sd-bus can use; a typo is refused naming the key,
/// rather than becoming an address that never connects and quietly turns the D-Bus sensors off.
@Suite struct SensorsBusConfigTests {
    @Test func aBusThatIsNoAddressIsRefused() throws {
        #expect(try ConfigLoader.parse("[sensors]\nbus = \"system\"\n", file: "t.toml").sensors.bus == .system)
        let address = "unix:path=/run/dbus/system_bus_socket;tcp:host=127.0.0.1,port=4000"
        #expect(
            try ConfigLoader.parse("[sensors]\nbus = \"\(address)\"\n", file: "t.toml").sensors.bus == .address(address)
        )
        for bad in ["session", "user", "/run/dbus/system_bus_socket", ""] {
            #expect(
                ConfigLoader.refusal("[sensors]\nbus = \"\(bad)\"\n")?.hasPrefix(
                    "t.toml:2: sensors.bus: expected \"system\" or a D-Bus address"
                ) == true,
                "\(bad)"
            )
        }
    }
}

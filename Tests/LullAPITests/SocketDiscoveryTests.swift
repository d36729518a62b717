import LullAPI
import Testing

/// Which socket lullctl talks to: --socket, LULL_SOCKET, the user instance's, the system's.
@Suite struct SocketDiscoveryTests {
    let environment = ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"]
    let user = "/run/user/1000/lull/lull.sock"
    let system = "/srv/test/lull.sock"

    func discovery(_ present: Set<String>, environment: [String: String]? = nil) -> SocketDiscovery {
        SocketDiscovery(
            environment: environment ?? self.environment,
            systemSocket: system,
            exists: { present.contains($0) }
        )
    }

    @Test func theUserInstanceComesFirstThenTheSystemOne() {
        let both = discovery([user, system]).choose(flag: nil, instance: nil)
        #expect(both.path == user && both.source == .user && both.found)
        let systemOnly = discovery([system]).choose(flag: nil, instance: nil)
        #expect(systemOnly.path == system && systemOnly.source == .system && systemOnly.found)
        #expect(systemOnly.description == "system instance at \(system)")
    }

    @Test func neitherFoundListsBothPathsTried() {
        let none = discovery([]).choose(flag: nil, instance: nil)
        #expect(!none.found)
        #expect(none.tried == [user, system])
        #expect(none.path == user)
    }

    @Test func anInstanceCanBeChosen() {
        #expect(discovery([user, system]).choose(flag: nil, instance: .system).path == system)
        let userOnly = discovery([system]).choose(flag: nil, instance: .user)
        #expect(userOnly.path == user && !userOnly.found && userOnly.tried == [user])
    }

    @Test func theFlagAndTheEnvironmentWin() {
        var environment = self.environment
        environment["LULL_SOCKET"] = "/tmp/named.sock"
        let named = discovery([user, system], environment: environment)
        #expect(named.choose(flag: nil, instance: nil).path == "/tmp/named.sock")
        #expect(named.choose(flag: nil, instance: nil).source == .environment)
        // An instance flag on the command line beats the environment.
        #expect(named.choose(flag: nil, instance: .system).path == system)
        #expect(
            named.choose(flag: "/tmp/flag.sock", instance: nil)
                == SocketDiscovery.Choice(
                    path: "/tmp/flag.sock",
                    source: .flag,
                    tried: [],
                    found: true
                )
        )
    }

    @Test func withoutARuntimeDirectoryTheUserSocketIsInTheStateDirectory() {
        let choice = discovery([], environment: ["HOME": "/home/ada"]).choose(flag: nil, instance: nil)
        #expect(choice.tried == ["/home/ada/.local/state/lull/lull.sock", system])
    }
}

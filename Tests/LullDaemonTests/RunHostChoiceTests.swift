import LullTransfer
import Testing

@testable import LullDaemon

/// `[run] host = "auto"`: units only for a lulld that is a service of a user's own manager. A
/// lulld started from a desktop terminal sits in a scope of that manager; before, it took the
/// systemd host too, and its jobs' units (named by job id alone) met those of the user's own
/// lulld.
@Suite struct RunHostChoiceTests {
    @Test(arguments: [
        ("lulld.service", true, RunHost.systemd),
        ("lulld@work.service", true, RunHost.systemd),
        ("app-org.gnome.Terminal-4721.scope", true, RunHost.process),
        ("session-3.scope", true, RunHost.process),
        (nil, true, RunHost.process),
        ("lulld.service", false, RunHost.process),
    ])
    func autoIsSystemdForAUserServiceOnly(userUnit: String?, booted: Bool, host: RunHost) {
        #expect(RunHostChoice.autoHost(userUnit: userUnit, booted: booted) == host)
    }
}

import Foundation
import LullTestSupport
import Testing

/// A lulld in no unit of the manager's at all (started from outside its tree, as `nsenter`
/// starts processes in the container) asks the manager which unit it runs in, is told none
/// (`NoUnitForPID`), and keeps tagged job unit names: only `lulld.service` names units by id
/// alone, and an answer, even "none", is kept for the next start.
@Suite(
    .serialized,
    .enabled(
        if: SystemdEnvironment.shouldRun,
        "systemd-nspawn end-to-end tests need root, systemd-nspawn and debootstrap"
    )
)
struct OwnUnitTests {
    @Test(.timeLimit(.minutes(4)))
    func aLulldInNoUnitKeepsTaggedNames() throws {
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) {
            try SystemdEnvironment.install(into: machine)
            try machine.write("[run]\nhost = \"systemd\"\n", to: "/etc/lull-outside.toml")
            // start-stop-daemon detaches it and closes every descriptor it would inherit, so
            // this command returns.
            try machine.check([
                "start-stop-daemon", "--start", "--background", "--output", "/run/lull-outside.log",
                "--exec", "/usr/bin/lulld", "--", "--state-dir", "/var/lib/lull-outside", "--socket",
                "/run/lull-outside.sock", "--config", "/etc/lull-outside.toml",
            ])
            defer { _ = try? machine.run(["pkill", "-f", "lull-outside.toml"]) }
            let kept: String
            do {
                kept = try machine.waitFor("lulld to keep its job unit names", timeout: .seconds(30)) { () -> String? in
                    let read = try machine.run(["cat", "/var/lib/lull-outside/job-unit-tag"])
                    return read.status == 0 && !read.stdout.isEmpty ? read.stdout : nil
                }
            } catch {
                let log = try machine.run(["cat", "/run/lull-outside.log"])
                throw NspawnError("\(error); lulld's log: \(log.stdout)\(log.stderr)")
            }
            let pid = try machine.check(["pgrep", "-f", "lull-outside.toml"]).trimmed
            let asked = try machine.run([
                "busctl", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager", "GetUnitByPID", "u", pid,
            ])
            print("own unit: the manager on lulld \(pid): \(asked.stdout.trimmed)\(asked.stderr.trimmed)")
            #expect(asked.stderr.contains("does not belong to any loaded unit"), "\(asked.stdout)\(asked.stderr)")
            let lines = kept.split(separator: "\n")
            #expect(lines.count == 2 && lines[1] == "/var/lib/lull-outside", "\(kept)")
            let tag = lines.first ?? ""
            #expect(tag.count == 8 && tag.allSatisfy(\.isHexDigit), "\(kept)")
            let log = try machine.check(["cat", "/run/lull-outside.log"])
            #expect(log.contains("lull-job-\(tag)-<id>.service") || log.contains("lull-job-\(tag)"), "\(log)")
            #expect(!log.contains("for this run only"), "\(log)")
        }
    }
}

import Foundation
import LullCore
import Testing

@testable import LullTransfer

/// Two lullds on one service manager keep to their own units: job ids are per store, so the
/// units of job 1 of each must not share a name (before, both were `lull-job-1.service`, and
/// one lulld's start, stop or freeze of its job reached the other's command).
@Suite struct JobUnitNamesTests {
    let root = NSTemporaryDirectory() + "lull-names-\(UUID().uuidString.prefix(8))"

    func directory(_ name: String) throws -> String {
        let path = root + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theShippedUnitNamesItsJobsUnitsByIdAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let names = JobUnitNames.of(ownUnit: "lulld.service", stateDirectory: try directory("a"))
        #expect(names == .plain)
        #expect(names.unit(of: JobID(7)) == "lull-job-7.service")
    }

    @Test func anyOtherLulldTagsThemWithItsStateDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let a = try directory("a")
        let b = try directory("b")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: a)
        let second = JobUnitNames.of(ownUnit: "lull-second.service", stateDirectory: a)
        let tag = try #require(second.tag)
        #expect(tag.count == 8 && tag.allSatisfy(\.isHexDigit), "\(tag)")
        #expect(second.unit(of: JobID(7)) == "lull-job-\(tag)-7.service")
        #expect(JobUnitNames.isJobUnit(second.unit(of: JobID(7))))
        // The same directory however it is reached, and in no unit at all: the same names, so a
        // restart finds the units it left.
        #expect(JobUnitNames.of(ownUnit: nil, stateDirectory: a) == second)
        #expect(JobUnitNames.of(ownUnit: "app-term-1.scope", stateDirectory: root + "/link") == second)
        #expect(JobUnitNames.of(ownUnit: "lull-second.service", stateDirectory: b) != second)
        #expect(JobUnitNames.of(ownUnit: nil, stateDirectory: b).unit(of: JobID(7)) != second.unit(of: JobID(7)))
    }

    /// Decided at the first start and kept: a later start in another unit still finds the units
    /// the first one named. A manager that does not answer gets tagged names, kept by no one.
    @Test func theNamesAreDecidedOnceAndKeptInTheStateDirectory() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        struct NoAnswer: Error {}
        let shipped = try directory("shipped")
        let unanswered = await JobUnitNames.settled(in: shipped) { throw NoAnswer() }
        #expect(unanswered.names.tag != nil && unanswered.problem is NoAnswer)
        #expect(!FileManager.default.fileExists(atPath: shipped + "/" + JobUnitNames.keptFile), "nothing kept")
        let first = await JobUnitNames.settled(in: shipped) { "lulld.service" }
        #expect(first.names == .plain && first.problem == nil)
        // A crash of that unanswered run left tagged units: the plain names look there too.
        #expect(first.leftoverNames == [.plain, unanswered.names])
        #expect(await JobUnitNames.settled(in: shipped) { "lull-other.service" }.names == .plain, "kept")
        #expect(await JobUnitNames.settled(in: shipped) { throw NoAnswer() }.names == .plain, "kept, not asked")

        let other = try directory("other")
        let tagged = await JobUnitNames.settled(in: other) { nil }
        #expect(tagged.names.tag != nil && tagged.problem == nil)
        #expect(tagged.leftoverNames == [tagged.names], "never another lulld's plain names")
        #expect(await JobUnitNames.settled(in: other) { "lulld.service" }.names == tagged.names)

        // A copy of a directory is another store: it decides again, and is tagged as another
        // lulld's would be.
        let copy = root + "/copy"
        try FileManager.default.copyItem(atPath: shipped, toPath: copy)
        let copied = await JobUnitNames.settled(in: copy) { "lull-second.service" }
        #expect(copied.names.tag != nil && copied.names == JobUnitNames.of(ownUnit: nil, stateDirectory: copy))

        // A kept file that does not read as a decision is decided again.
        let damaged = try directory("damaged")
        try "lull-job-1\n".write(toFile: damaged + "/" + JobUnitNames.keptFile, atomically: true, encoding: .utf8)
        #expect(await JobUnitNames.settled(in: damaged) { "lulld.service" }.names == .plain)
        #expect(
            try String(contentsOfFile: damaged + "/" + JobUnitNames.keptFile, encoding: .utf8)
                == "plain\n\(JobUnitNames.resolved(damaged))\n"
        )

        // One that cannot be written: the names are used all the same, and the failure said.
        let gone = await JobUnitNames.settled(in: root + "/missing") { "lulld.service" }
        #expect(gone.names == .plain && gone.problem != nil)
    }

    /// The runner starts its units, and looks for its leftovers, under its own names.
    @Test func theRunnerStartsAndEndsUnitsByItsNames() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try directory("state")
        let names = JobUnitNames.of(ownUnit: nil, stateDirectory: state)
        let tag = try #require(names.tag)
        let manager = RunLaunchDefaultsTests.RecordingManager()
        let runner = RunTransfer(
            logs: RunLogs(stateDirectory: state),
            settings: RunSettings(),
            manager: manager,
            unitNames: names
        )
        let job = Job(
            id: JobID(1),
            owner: OwnerID(getuid()),
            spec: JobSpec(.run(RunJob(argv: ["true"], workingDirectory: state))),
            createdAt: Date()
        )
        await #expect(throws: JobFailure.self) { _ = try await runner.run(job, context: TransferContext()) }
        #expect(manager.services.withLock { $0.map(\.name) } == ["lull-job-\(tag)-1.service"])
        let ended = await runner.endLeftoverUnits(of: [JobID(3), JobID(4)])
        #expect(ended == ["lull-job-\(tag)-3.service", "lull-job-\(tag)-4.service"])
        #expect(manager.leftovers.withLock { $0 } == ended)
        let both = await runner.endLeftoverUnits(of: [JobID(5)], named: [.plain, names])
        #expect(both == ["lull-job-5.service", "lull-job-\(tag)-5.service"])
    }
}

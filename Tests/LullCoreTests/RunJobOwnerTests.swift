import LullCore
import Testing

/// What depends on who submits a run job: a negative niceness is root's alone, and a lulld that
/// can start only its own uid's commands refuses anyone else's, saying what would run them.
@Suite struct RunJobOwnerTests {
    func refusal(_ job: RunJob, owner: UInt32, commandsOnlyOf: OwnerID? = nil) -> ValidationError? {
        do {
            try JobSpecValidator(limits: SubmissionLimits(), commandsOnlyOf: commandsOnlyOf)
                .validate(JobSpec(.run(job)), owner: OwnerID(owner))
            return nil
        } catch {
            return error
        }
    }

    @Test func onlyRootMayAskForANegativeNiceness() throws {
        let eager = RunJob(argv: ["make"], nice: -5)
        let refused = try #require(refusal(eager, owner: 1000))
        #expect(refused.code == .forbidden && refused.field == "nice", "\(refused)")
        #expect(refused.message.hasPrefix("nice is -5; a niceness below 0"), "\(refused.message)")
        #expect(refusal(eager, owner: 0) == nil)
        #expect(refusal(RunJob(argv: ["make"], nice: 0), owner: 1000) == nil)
        #expect(refusal(RunJob(argv: ["make"], nice: 19), owner: 1000) == nil)
    }

    @Test func aLulldThatRunsOnlyItsOwnCommandsRefusesOthers() throws {
        let job = RunJob(argv: ["true"])
        let refused = try #require(refusal(job, owner: 1000, commandsOnlyOf: OwnerID(999)))
        #expect(refused.code == .forbidden && refused.field == "argv", "\(refused)")
        #expect(refused.message.contains("as uid 999, which can neither become uid 1000"), "\(refused.message)")
        #expect(refused.message.contains("[run] host = \"systemd\""), "\(refused.message)")
        #expect(refusal(job, owner: 999, commandsOnlyOf: OwnerID(999)) == nil)
        #expect(refusal(job, owner: 1000) == nil, "a lulld that runs anyone's")
    }

    /// Transfers do not depend on their owner here (their paths are checked with the owner's
    /// rights elsewhere).
    @Test func otherKindsAreTheSameForEveryOwner() {
        let fetch = JobSpec(.fetch(FetchJob(url: "http://example.org/f", destination: "/tmp/f")))
        let validator = JobSpecValidator(limits: SubmissionLimits(), commandsOnlyOf: OwnerID(999))
        #expect(throws: Never.self) { try validator.validate(fetch, owner: OwnerID(1000)) }
    }
}

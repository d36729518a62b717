import LullCore
import Testing

/// A run job that names an existing unit instead of a command (`unit`): one or the other, a
/// service name, and only where commands run as systemd units.
@Suite struct RunUnitJobTests {
    func refusal(_ job: RunJob, asUnits: Bool = true) -> ValidationError? {
        let validator = JobSpecValidator(limits: SubmissionLimits(), runsCommandsAsUnits: asUnits)
        do {
            try validator.validate(JobSpec(.run(job)))
            return nil
        } catch {
            return error
        }
    }

    @Test func aServiceNameIsAcceptedOnTheSystemdHost() {
        #expect(refusal(RunJob(argv: [], unit: "backup.service")) == nil)
        #expect(refusal(RunJob(argv: [], unit: "sync@home.service")) == nil)
        #expect(RunJob(argv: [], unit: "backup.service").summary == "run unit backup.service")
    }

    @Test func theProcessHostRefusesItByName() {
        let error = refusal(RunJob(argv: [], unit: "backup.service"), asUnits: false)
        #expect(error?.code == .notEnforceable)
        #expect(error?.field == "unit")
        #expect(error?.message.contains("[run] host = \"systemd\"") == true)
    }

    @Test func eitherArgvOrUnit() {
        let error = refusal(RunJob(argv: ["true"], unit: "backup.service"))
        #expect(error?.field == "unit")
        #expect(error?.message == "give either argv or unit, not both")
    }

    @Test func namesThatAreNotAStartableServiceAreRefused() {
        for name in ["backup", "backup@.service", "multi-user.target", "a b.service", "lull-job-7.service", ""] {
            let error = refusal(RunJob(argv: [], unit: name))
            #expect(error?.field == "unit", "\(name): \(String(describing: error))")
        }
    }

    @Test func howTheCommandRunsDoesNotApplyToAUnit() {
        #expect(refusal(RunJob(argv: [], environment: ["A": "b"], unit: "backup.service"))?.field == "environment")
        #expect(
            refusal(RunJob(argv: [], workingDirectory: "/srv", unit: "backup.service"))?.field == "working_directory"
        )
        #expect(
            refusal(RunJob(argv: [], resources: RunResources(memoryMax: 1 << 30), unit: "backup.service"))?.field
                == "memory_max"
        )
    }
}

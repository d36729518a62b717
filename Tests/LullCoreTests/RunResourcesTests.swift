import LullCore
import Testing

/// `cpu_weight`, `memory_max`, `io_weight`, `tasks_max`: their limits, the host that can enforce
/// them, and a class's defaults under a job's own values.
@Suite struct RunResourcesTests {
    func refusal(_ resources: RunResources, asUnits: Bool) -> ValidationError? {
        let validator = JobSpecValidator(limits: SubmissionLimits(), runsCommandsAsUnits: asUnits)
        do {
            try validator.validate(JobSpec(.run(RunJob(argv: ["true"], resources: resources))))
            return nil
        } catch {
            return error
        }
    }

    @Test func theLimitsThemselvesAreAcceptedWhereCommandsRunAsUnits() {
        let lowest = RunResources(cpuWeight: 1, memoryMax: 1 << 20, ioWeight: 1, tasksMax: 1)
        let highest = RunResources(cpuWeight: 10_000, memoryMax: Int64.max, ioWeight: 10_000, tasksMax: 4_194_304)
        #expect(refusal(lowest, asUnits: true) == nil)
        #expect(refusal(highest, asUnits: true) == nil)
        #expect(refusal(RunResources(ioWeight: 10_001), asUnits: true)?.field == "io_weight")
    }

    @Test func whereLulldStartsCommandsItselfEachIsRefusedByName() {
        for (resources, field) in [
            (RunResources(cpuWeight: 200), "cpu_weight"), (RunResources(memoryMax: 2 << 30), "memory_max"),
            (RunResources(ioWeight: 50), "io_weight"), (RunResources(tasksMax: 64), "tasks_max"),
        ] {
            let error = refusal(resources, asUnits: false)
            #expect(error?.code == .notEnforceable && error?.field == field, "\(String(describing: error))")
            #expect(
                error?.message
                    == "\(field) needs lulld to run commands as systemd units ([run] host = \"systemd\"); this lulld starts commands itself, where only nice applies"
            )
        }
        // nice applies on either host; a job without controls stores none.
        #expect(refusal(RunResources(), asUnits: false) == nil)
        #expect(RunJob(argv: ["true"], nice: 5, resources: RunResources()).resources == nil)
    }

    /// The process host whose commands get cgroups with some controllers delegated: the
    /// controls those enforce are accepted, the others refused naming the missing controller.
    @Test func whereCommandsGetCgroupsTheirControllersDecide() throws {
        let validator = JobSpecValidator(limits: SubmissionLimits(), cgroupControllers: ["memory", "pids"])
        func refusal(_ resources: RunResources) -> ValidationError? {
            do {
                try validator.validate(JobSpec(.run(RunJob(argv: ["true"], resources: resources))))
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal(RunResources(memoryMax: 64 << 20, tasksMax: 8)) == nil)
        let error = try #require(refusal(RunResources(cpuWeight: 50, memoryMax: 64 << 20)))
        #expect(error.code == .notEnforceable && error.field == "cpu_weight")
        #expect(
            error.message
                == "cpu_weight needs the cpu controller, which lulld's cgroup does not delegate, or systemd units ([run] host = \"systemd\"); this lulld starts commands in cgroups where nice, memory_max, tasks_max apply"
        )
        #expect(RunResources.fields.map(RunResources.controller(of:)) == ["cpu", "memory", "io", "pids"])
    }

    @Test func aJobsOwnValueReplacesItsClasssDefault() {
        let job = RunResources(memoryMax: 1 << 30, tasksMax: 10)
        let classDefaults = RunResources(cpuWeight: 20, memoryMax: 4 << 30, ioWeight: 30)
        #expect(
            job.merged(over: classDefaults)
                == RunResources(cpuWeight: 20, memoryMax: 1 << 30, ioWeight: 30, tasksMax: 10)
        )
        #expect(RunResources().merged(over: classDefaults) == classDefaults)
        #expect(job.merged(over: RunResources()) == job)
        #expect(RunResources().isEmpty && !job.isEmpty)
        #expect(job.values.map(\.field) == ["memory_max", "tasks_max"])
    }
}

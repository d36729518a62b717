import Foundation
import LullCore
import Synchronization
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// What a run attempt hands its launcher: the niceness and resource controls in force, its
/// class's defaults under the job's own values.
@Suite struct RunLaunchDefaultsTests {
    /// Records each request and starts nothing.
    final class RecordingLauncher: ProcessLauncher, Sendable {
        let requests = Mutex<[LaunchRequest]>([])

        func launch(_ request: LaunchRequest) throws(JobFailure) -> LaunchedProcess {
            requests.withLock { $0.append(request) }
            throw JobFailure(code: "exec_failed", message: "recorded, not started", retryable: false)
        }
    }

    /// Records each transient unit it is asked for and starts nothing.
    final class RecordingManager: ServiceManager, Sendable {
        let services = Mutex<[TransientService]>([])
        let leftovers = Mutex<[String]>([])

        func startTransient(_ service: TransientService) async throws(JobFailure) {
            services.withLock { $0.append(service) }
            throw JobFailure(code: "unit_failed", message: "recorded, not started", retryable: false)
        }
        func start(existing unit: String, jobID: JobID) async throws(JobFailure) {}
        func end(of unit: String) async -> ServiceEnd { ServiceEnd(outcome: .failed("never started")) }
        func stop(_ unit: String) async -> Bool { true }
        func freeze(_ unit: String) async -> Bool { false }
        func thaw(_ unit: String) async -> Bool { false }
        func usage(of unit: String) async -> ServiceUsage? { nil }
        func release(_ unit: String) async {}
        func endLeftovers(of units: [String]) async -> [String] {
            leftovers.withLock { $0 += units }
            return units
        }
    }

    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "lull-launch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func job(_ command: RunJob, class className: String) -> Job {
        var command = command
        command.workingDirectory = directory
        return Job(
            id: JobID(1),
            owner: OwnerID(getuid()),
            spec: JobSpec(.run(command), jobClass: className),
            createdAt: Date()
        )
    }

    /// What the systemd host asks its manager for.
    func unit(_ command: RunJob, class className: String, settings: RunSettings) async throws -> TransientService {
        let manager = RecordingManager()
        let runner = RunTransfer(logs: RunLogs(stateDirectory: directory), settings: settings, manager: manager)
        await #expect(throws: JobFailure.self) {
            _ = try await runner.run(job(command, class: className), context: TransferContext())
        }
        return try #require(manager.services.withLock { $0.first })
    }

    func launched(_ command: RunJob, class className: String, settings: RunSettings) async throws -> LaunchRequest {
        let launcher = RecordingLauncher()
        let runner = RunTransfer(launcher: launcher, logs: RunLogs(stateDirectory: directory), settings: settings)
        var command = command
        command.workingDirectory = directory
        let job = Job(
            id: JobID(1),
            owner: OwnerID(getuid()),
            spec: JobSpec(.run(command), jobClass: className),
            createdAt: Date()
        )
        await #expect(throws: JobFailure.self) { _ = try await runner.run(job, context: TransferContext()) }
        return try #require(launcher.requests.withLock { $0.first })
    }

    @Test func theClassDefaultsFillWhatTheJobLeavesOut() async throws {
        var settings = RunSettings()
        settings.classDefaults["background"] = RunClassDefaults(
            nice: 10,
            resources: RunResources(cpuWeight: 20, memoryMax: 4 << 30, ioWeight: 10)
        )
        let own = RunJob(argv: ["true"], resources: RunResources(memoryMax: 1 << 30, tasksMax: 64))
        let service = try await unit(own, class: "background", settings: settings)
        #expect(service.name == "lull-job-1.service")
        #expect(service.launch.nice == 10)
        #expect(service.launch.resources == RunResources(cpuWeight: 20, memoryMax: 1 << 30, ioWeight: 10, tasksMax: 64))
        #expect(service.user == getuid(), "the system manager's unit carries User=")

        let processHost = try await launched(RunJob(argv: ["true"]), class: "background", settings: settings)
        // A process without a cgroup of its own enforces none of the class's controls (start-up
        // warns of them): the request carries only what is in force.
        #expect(processHost.nice == 10 && processHost.resources == RunResources())

        let nicer = try await launched(RunJob(argv: ["true"], nice: -2), class: "background", settings: settings)
        #expect(nicer.nice == -2, "the job's own niceness replaces its class's")

        let plain = try await launched(RunJob(argv: ["true"]), class: "default", settings: settings)
        #expect(plain.nice == nil && plain.resources.isEmpty, "a class without defaults adds none")
    }

    /// A job stored with its own limits by a lulld on the systemd host is not run without them
    /// by one that starts commands itself.
    @Test func aJobsOwnLimitsAreNotDroppedOnTheProcessHost() async throws {
        let launcher = RecordingLauncher()
        let runner = RunTransfer(launcher: launcher, logs: RunLogs(stateDirectory: directory), settings: RunSettings())
        let limited = job(RunJob(argv: ["true"], resources: RunResources(memoryMax: 1 << 30)), class: "default")
        do {
            _ = try await runner.run(limited, context: TransferContext())
            Issue.record("ran without its memory_max")
        } catch let failure as JobFailure {
            #expect(failure.code == "not_enforceable" && !failure.retryable)
            #expect(failure.message.contains("memory_max"))
        }
        #expect(launcher.requests.withLock { $0.isEmpty })
    }
}

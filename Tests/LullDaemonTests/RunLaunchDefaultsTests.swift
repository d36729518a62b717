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

    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "lull-launch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
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
        let request = try await launched(own, class: "background", settings: settings)
        #expect(request.nice == 10)
        #expect(request.resources == RunResources(cpuWeight: 20, memoryMax: 1 << 30, ioWeight: 10, tasksMax: 64))

        let nicer = try await launched(RunJob(argv: ["true"], nice: -2), class: "background", settings: settings)
        #expect(nicer.nice == -2, "the job's own niceness replaces its class's")

        let plain = try await launched(RunJob(argv: ["true"]), class: "default", settings: settings)
        #expect(plain.nice == nil && plain.resources.isEmpty, "a class without defaults adds none")
    }
}

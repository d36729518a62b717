import CLullSys
import LullCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Run jobs on the systemd host: each attempt is a transient `lull-job-<id>.service` (tagged
/// when lulld is not the manager's `lulld.service`: `JobUnitNames`) in
/// `lull-jobs.slice`, started as the owner (`User=` on the system manager), with the job's
/// limits as unit properties. The manager owns the processes; lulld reads their output through
/// a pipe handed to the unit and turns the unit's end into the job's outcome.
extension RunTransfer {
    func runAsUnit(_ job: Job, command: RunJob, manager: any ServiceManager) async throws -> JobResult {
        let attempt = attempt(of: job, command: command)
        // Looks up the account and the program's path: blocking calls, for the thread pool.
        var launch = try await NIOThreadPool.singleton.runIfActive { try attempt.prepare() }
        let log = try RunLogFile(path: attempt.logPath, limit: settings.maxLogBytes)
        var pipe: [Int32] = [-1, -1]
        guard lull_pipe(&pipe, 0) == 0 else {
            log.close()
            throw JobFailure(code: "internal_error", message: "cannot make a pipe", retryable: true)
        }
        let pump = OutputPump(
            output: pipe[0],
            log: log,
            tail: OutputTail(capacity: command.outputTailBytes ?? RunJob.defaultOutputTailBytes),
            name: "lull-out-\(job.id.rawValue)",
            lines: lineSink(for: job.id)
        )
        launch.outputDescriptor = pipe[1]
        let service = TransientService(
            name: unitNames.unit(of: job.id),
            jobID: job.id,
            description: "Lull job \(job.id.rawValue): \(command.summary)",
            launch: launch,
            user: units.isSystemManager ? attempt.owner : nil,
            stopGraceSeconds: command.stopGraceSeconds ?? RunJob.defaultStopGraceSeconds
        )
        do {
            try await manager.startTransient(service)
            close(pipe[1])
        } catch {
            close(pipe[1])
            _ = await pump.finish(drain: 0)
            throw error
        }
        let deadline = UnitDeadline(at: attempt.deadline)
        let end = await follow(service.name, of: job.id, deadline: deadline, manager: manager)
        let tail = await pump.finish()
        await manager.release(service.name)
        if Task.isCancelled { throw CancellationError() }
        return try Self.outcome(
            of: end,
            tail: command.outputTailBytes == 0 ? nil : tail,
            job: command,
            memoryMax: launch.resources.memoryMax,
            unit: service.name
        ).get()
    }

    /// A unit job: an existing unit started and followed to its end. Its output goes where the
    /// unit's file sends it (the journal, usually), so the result has no tail.
    func runExisting(_ unit: String, job: Job, command: RunJob, manager: any ServiceManager) async throws -> JobResult {
        guard !units.isSystemManager || job.owner.rawValue == 0 else {
            throw JobFailure(
                code: "permission_denied",
                message: "only root may start a system unit; run a user instance of lulld to start your own units",
                retryable: false
            )
        }
        try await manager.start(existing: unit, jobID: job.id)
        let end = await follow(unit, of: job.id, deadline: nil, manager: manager)
        await manager.release(unit)
        if Task.isCancelled { throw CancellationError() }
        return try Self.outcome(of: end, tail: nil, job: command, memoryMax: nil, unit: unit).get()
    }

    private func lineSink(for id: JobID) -> (@Sendable (Substring) -> Void)? {
        guard let outputLines else { return nil }
        return { line in outputLines(id, line) }
    }

    /// Waits for the unit's end, reading its usage every second meanwhile; a cancelled attempt
    /// (a stop, pause or cancel) stops the unit and still waits for its end. With a `deadline`,
    /// a unit still running once it has passed is stopped, and its end is then a timeout.
    private func follow(
        _ unit: String,
        of id: JobID,
        deadline: UnitDeadline?,
        manager: any ServiceManager
    ) async -> ServiceEnd {
        units.add(id, unit: unit, deadline: deadline)
        defer { units.remove(id) }
        let sleeper = self.sleeper
        let sampling = Task {
            while !Task.isCancelled {
                if let usage = await manager.usage(of: unit) { units.record(usage, of: id) }
                try? await sleeper.sleep(for: .seconds(1))
            }
        }
        defer { sampling.cancel() }
        let timeout = Task {
            guard let deadline, (try? await deadline.passed(sleeper: sleeper)) != nil else { return false }
            // A unit that ended by itself just before keeps its end.
            guard await manager.stop(unit) else { return false }
            // Sent again until the end arrives: a stop lost to a busy manager or a reconnecting
            // bus would leave the command running past its timeout.
            while (try? await sleeper.sleep(for: .seconds(5))) != nil { await manager.stop(unit) }
            return true
        }
        var end = await withTaskCancellationHandler {
            await manager.end(of: unit)
        } onCancel: {
            Task { await manager.stop(unit) }
        }
        timeout.cancel()
        // However the command ended once stopped (it may exit 0 on SIGTERM), as on the process
        // host; a kill at its memory limit keeps that end.
        if await timeout.value, end.outcome != .memoryLimit { end.outcome = .timedOut }
        // Where the manager keeps no peak, the highest reading while it ran stands for it.
        if end.usage.memoryPeakBytes == nil { end.usage.memoryPeakBytes = units.memoryPeak(of: id) }
        return end
    }

    /// Success, or the failure that carries the result: the process host's rules (`RunExit`),
    /// plus the ends only a manager reports.
    static func outcome(
        of end: ServiceEnd,
        tail: String?,
        job: RunJob,
        memoryMax: Int64?,
        unit: String
    ) -> Result<JobResult, JobFailure> {
        func result(status: Int32) -> JobResult {
            var result = RunExit.result(
                status: status,
                outputTail: tail,
                cpuSeconds: end.usage.cpuSeconds ?? 0,
                memoryPeakBytes: end.usage.memoryPeakBytes ?? end.usage.memoryBytes ?? 0,
                ioReadBytes: end.usage.ioReadBytes,
                ioWriteBytes: end.usage.ioWriteBytes
            )
            result.unit = unit
            return result
        }
        switch end.outcome {
        case .exited(let code):
            return RunExit.outcome(of: result(status: Int32(code & 0xFF) << 8), job: job)
        case .killed(let signal):
            return RunExit.outcome(of: result(status: Int32(signal & 0x7F)), job: job)
        case .memoryLimit:
            let limit = memoryMax.map { " of \($0) bytes" } ?? ""
            return .failure(
                JobFailure(
                    code: "memory_limit",
                    message: "the command was killed at its memory limit\(limit) (memory_max)",
                    retryable: false,
                    result: result(status: SIGKILL)
                )
            )
        case .timedOut:
            return .failure(
                JobFailure(
                    code: "total_timeout",
                    message: "the command ran past its total timeout and was stopped",
                    retryable: true,
                    result: result(status: SIGTERM)
                )
            )
        case .failed(let why):
            return .failure(JobFailure(code: "unit_failed", message: why, retryable: true))
        }
    }
}

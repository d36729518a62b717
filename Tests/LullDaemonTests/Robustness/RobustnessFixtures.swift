import Foundation
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import Synchronization
import Testing

/// Waits until every job in `ids` has reached a terminal state (reading the event log, never
/// polling), then returns them as they ended. Fails after `timeout` naming the stragglers.
func awaitAllTerminal(_ ids: Set<Int64>, client: LullClient, timeout: Duration) async throws -> [Int64: JobView] {
    let cursor = try await latestSeq(client)
    var pending = ids
    for job in try await client.allJobs() where job.state.isTerminal { pending.remove(job.id) }
    if !pending.isEmpty {
        let waitingFor = pending
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var left = waitingFor
                for try await event in client.followEvents(after: cursor) where event.state.isTerminal {
                    left.remove(event.jobId)
                    if left.isEmpty { return }
                }
                throw TimedOut(description: "event stream ended with \(left.count) jobs unfinished")
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                let stuck = try await client.allJobs().filter { waitingFor.contains($0.id) && !$0.state.isTerminal }
                throw TimedOut(
                    description: "\(stuck.count) jobs not finished within \(timeout): "
                        + stuck.prefix(10).map {
                            "\($0.id) \($0.kind.rawValue) \($0.state.rawValue) attempts=\($0.attempts)"
                        }.joined(separator: "; ")
                )
            }
            try await group.next()
            group.cancelAll()
        }
    }
    var ended: [Int64: JobView] = [:]
    for job in try await client.allJobs() where ids.contains(job.id) { ended[job.id] = job }
    return ended
}

/// The newest event's sequence number.
func latestSeq(_ client: LullClient) async throws -> Int64 {
    // The daemon's own cursor, one call; it is right after a restart too (DurabilityTests).
    try await client.status().lastEventSeq ?? 0
}

/// SQLite's own verdict on the store file of a stopped daemon ("ok" when sound). Opening it is
/// what the next daemon start would do too (WAL recovery included).
func storeIntegrity(_ daemon: DaemonProcess) async throws -> String {
    let store = try SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite")
    return try await store.integrityCheck()
}

/// SHA-256 of a file's contents, or nil when it does not exist.
func fileSHA256(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return TestHTTPServer.sha256([UInt8](data))
}

/// Mutable state shared by a test's tasks: a `Mutex` in a class, so escaping closures can
/// capture it.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// Waits for a condition that has no event to wait on (a counter in a test server, a row in a
/// store under test), checking every 20 ms up to `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "\(what): not within \(timeout)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

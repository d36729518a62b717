import LullCore

/// The words of the service manager's `STATUS=` line: "3 running, 41 queued; holding 12: on
/// battery (12)", naming the two world conditions that hold the most jobs.
struct ServiceStatusLine: Sendable, Equatable {
    var running: Int
    var queued: Int
    var mode: DispatchMode
    /// Queued jobs per world condition that holds them; asked only while jobs may start and
    /// some are queued (counting costs a pass over the scheduling groups).
    var held: [WaitingReason.Code: Int]

    init(running: Int, queued: Int, mode: DispatchMode, held: () -> [WaitingReason.Code: Int]) {
        self.running = running
        self.queued = queued
        self.mode = mode
        self.held = mode == .accepting && queued > 0 ? held() : [:]
    }

    var text: String {
        let line = "\(running) running, \(queued) queued"
        switch mode {
        case .accepting: break
        case .restoring: return line + "; loading the queue"
        case .sleeping: return line + "; transfers checkpointed for sleep"
        case .stopping: return line + "; stopping"
        }
        let total = held.values.reduce(0, +)
        guard total > 0 else { return line }
        let top = held.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
            .prefix(2)
        return line + "; holding \(total): " + top.map { "\(Self.words($0.key)) (\($0.value))" }.joined(separator: ", ")
    }

    static func words(_ code: WaitingReason.Code) -> String {
        switch code {
        case .onBattery: "on battery"
        case .batteryBelow: "battery low"
        case .metered: "metered network"
        case .cellular: "cellular network"
        case .offline: "offline"
        case .cpuPressure: "CPU pressure"
        case .memoryPressure: "memory pressure"
        case .outsideWindow: "outside time window"
        case .notBefore: "not before"
        case .backoff: "retry backoff"
        case .classFull, .hostFull, .kindFull, .ownerFull, .globalFull: "concurrency limit"
        case .quota: "metered quota"
        case .paused: "paused"
        case .coalescing: "waiting to share a link"
        case .holdDown: "holding after a stop"
        case .notIdle: "machine in use"
        }
    }
}

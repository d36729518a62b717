import LullCore
import Synchronization

/// Which unit objects changed, as `PropertiesChanged` signals tell the bus thread, for tasks
/// that wait for a unit's end: a count per object path, and the waiters to wake. A waiter also
/// wakes after a while without a signal, to read the state again.
final class UnitChanges: Sendable {
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var generations: [String: Int] = [:]
        var waiters: [String: [Waiter]] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    /// The event loops' timers, not `Task.sleep` (see `Sleeper`).
    private let sleeper: any Sleeper

    init(sleeper: any Sleeper) { self.sleeper = sleeper }

    func generation(of path: String) -> Int { state.withLock { $0.generations[path] ?? 0 } }

    func changed(_ path: String) {
        let woken = state.withLock { state -> [Waiter] in
            state.generations[path, default: 0] += 1
            return state.waiters.removeValue(forKey: path) ?? []
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Returns once `path` changed after generation `seen`, or after `atMost`.
    func wait(_ path: String, after seen: Int, atMost: Duration) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let sleeper = sleeper
        let timer = Task {
            try? await sleeper.sleep(for: atMost)
            self.wake(path, id)
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if (state.generations[path] ?? 0) > seen { return true }
                state.waiters[path, default: []].append(Waiter(id: id, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }

    func forget(_ path: String) {
        let woken = state.withLock { state -> [Waiter] in
            state.generations[path] = nil
            return state.waiters.removeValue(forKey: path) ?? []
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    private func wake(_ path: String, _ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters[path]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters[path]?.remove(at: index)
        }
        waiter?.continuation.resume()
    }

    /// The object path of a unit: `/org/freedesktop/systemd1/unit/` and the name with every
    /// byte but letters and digits written `_xx` (sd-bus's label escaping).
    static func path(of unit: String) -> String {
        var label = ""
        for byte in unit.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            if isAlphanumeric {
                label.append(Character(UnicodeScalar(byte)))
            } else {
                label += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return "/org/freedesktop/systemd1/unit/" + label
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

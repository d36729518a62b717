import Foundation
import LullAPI
import LullClient

/// The full-screen loop of `top`: the alternate screen, keys in raw mode, a redraw every
/// interval and on resize. Each frame is built whole in memory and written with one write,
/// cursor home first and each line cleared to its end, so the screen never flickers.
///
/// The daemon is read by a task of its own, so the loop that owns the screen answers q and
/// signals at once even while a read waits on a daemon that went away.
struct TopSession {
    private enum Input: Sendable {
        case key(UInt8)
        case read(Result<TopSnapshot, any Error>)
        case signal(TerminalSignal)
    }

    let client: LullClient
    let interval: Duration
    private var snapshot: TopSnapshot?
    private var problem: String?

    init(client: LullClient, interval: Duration) {
        self.client = client
        self.interval = interval
    }

    /// One frame as plain text, for a pipe or `--once`.
    mutating func printOnce() async throws {
        var samplesAvailable = true
        snapshot = try await TopSnapshot.read(from: client, previous: nil, samplesAvailable: &samplesAvailable)
        let size = Terminal.Size(columns: Terminal.standardOutputIsTerminal ? Terminal.size().columns : 120, rows: 1000)
        print(TopScreen(size: size).lines(snapshot, problem: nil).joined(separator: "\n"))
    }

    /// Runs until q (or ctrl-c, ctrl-d) is typed, which returns nil, or a signal from outside
    /// (SIGTERM, SIGHUP, SIGINT), which returns that signal.
    mutating func run() async -> Int32? {
        // Handlers first: a signal between changing the terminal and catching signals would
        // leave the terminal raw and on the alternate screen.
        let signals = TerminalSignals.stream(stopOn: [SIGTERM, SIGHUP, SIGINT])
        let terminal = Terminal()
        terminal.enterRawMode()
        Terminal.write(ANSI.enterAlternateScreen + ANSI.hideCursor)
        defer {
            Terminal.write(ANSI.reset + ANSI.showCursor + ANSI.leaveAlternateScreen)
            terminal.restoreMode()
        }

        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        // Reasons to read the daemon again; many arriving during one read make one more read.
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let client = self.client
        let interval = self.interval
        let producers = [
            Task {
                for await byte in KeyboardInput.stream() { continuation.yield(.key(byte)) }
            },
            Task {
                for await signal in signals { continuation.yield(.signal(signal)) }
            },
            Task {
                repeat { wake.yield() } while (try? await Task.sleep(for: interval)) != nil
            },
            Task {
                // Job changes redraw at once instead of waiting for the next tick. A broken stream
                // only costs that immediacy; the ticks go on.
                do {
                    guard let cursor = try await client.status().lastEventSeq else { return }
                    for try await _ in client.followEvents(after: cursor) { wake.yield() }
                } catch {
                    return
                }
            },
            Task {
                var previous: TopSnapshot?
                var samplesAvailable = true
                for await _ in wakeups {
                    do {
                        let snapshot = try await TopSnapshot.read(
                            from: client,
                            previous: previous,
                            samplesAvailable: &samplesAvailable
                        )
                        previous = snapshot
                        continuation.yield(.read(.success(snapshot)))
                    } catch {
                        continuation.yield(.read(.failure(error)))
                    }
                    // Progress events come many times a second; a quarter second between reads is plenty.
                    guard (try? await Task.sleep(for: min(interval, .milliseconds(250)))) != nil else { return }
                }
            },
        ]
        defer { for producer in producers { producer.cancel() } }

        draw()
        for await input in inputs {
            switch input {
            case .key(let byte) where [UInt8(ascii: "q"), UInt8(ascii: "Q"), 3, 4].contains(byte):
                return nil  // q, ctrl-c, ctrl-d
            case .key:
                continue
            case .signal(.stop(let signal)):
                return signal
            case .signal(.resized):
                draw()
            case .read(.success(let read)):
                snapshot = read
                problem = nil
                draw()
            case .read(.failure(let error)):
                // Keep the last frame and say what is wrong; the next tick tries again.
                problem = "\(error) — trying again"
                draw()
            }
        }
        return nil
    }

    private func draw() {
        let lines = TopScreen(size: Terminal.size()).lines(snapshot, problem: problem)
        Terminal.write(
            ANSI.home + lines.map { $0 + ANSI.clearToEndOfLine }.joined(separator: "\r\n") + ANSI.clearToEndOfScreen
        )
    }
}

import Foundation
import LullAPI
import LullClient

/// The full-screen loop of `top`: the alternate screen, keys in raw mode, a redraw every
/// interval and on resize. Each frame is built whole in memory and written with one write,
/// cursor home first and each line cleared to its end, so the screen never flickers.
struct TopSession {
    private enum Input: Sendable {
        case key(UInt8)
        case tick
        case jobChanged
        case signal(TerminalSignal)
    }

    let client: LullClient
    let interval: Duration
    private var snapshot: TopSnapshot?
    private var problem: String?
    private var samplesAvailable = true
    private var lastRead = ContinuousClock.now - .seconds(60)

    init(client: LullClient, interval: Duration) {
        self.client = client
        self.interval = interval
    }

    /// One frame as plain text, for a pipe or `--once`.
    mutating func printOnce() async throws {
        snapshot = try await TopSnapshot.read(from: client, previous: nil, samplesAvailable: &samplesAvailable)
        let size = Terminal.Size(columns: Terminal.standardOutputIsTerminal ? Terminal.size().columns : 120, rows: 1000)
        print(TopScreen(size: size).lines(snapshot, problem: nil).joined(separator: "\n"))
    }

    /// Runs until q (or ctrl-c, ctrl-d) is typed, which returns nil, or a signal from outside
    /// (SIGTERM, SIGHUP, SIGINT), which returns that signal.
    mutating func run() async -> Int32? {
        let terminal = Terminal()
        terminal.enterRawMode()
        Terminal.write(ANSI.enterAlternateScreen + ANSI.hideCursor)
        defer {
            Terminal.write(ANSI.reset + ANSI.showCursor + ANSI.leaveAlternateScreen)
            terminal.restoreMode()
        }

        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let client = self.client
        let interval = self.interval
        let producers = [
            Task {
                for await byte in KeyboardInput.stream() { continuation.yield(.key(byte)) }
            },
            Task {
                for await signal in TerminalSignals.stream(stopOn: [SIGTERM, SIGHUP, SIGINT]) { continuation.yield(.signal(signal)) }
            },
            Task {
                while !Task.isCancelled {
                    continuation.yield(.tick)
                    try? await Task.sleep(for: interval)
                }
            },
            Task {
                // Job changes redraw at once instead of waiting for the next tick. A broken stream
                // only costs that immediacy; the ticks go on.
                do {
                    guard let cursor = try await client.status().lastEventSeq else { return }
                    for try await _ in client.followEvents(after: cursor) { continuation.yield(.jobChanged) }
                } catch {
                    return
                }
            },
        ]
        defer { for producer in producers { producer.cancel() } }

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
            case .tick:
                await refresh()
                draw()
            case .jobChanged:
                // Progress events come many times a second; a quarter second between reads is plenty.
                guard ContinuousClock.now - lastRead > .milliseconds(250) else { continue }
                await refresh()
                draw()
            }
        }
        return nil
    }

    private mutating func refresh() async {
        lastRead = ContinuousClock.now
        do {
            snapshot = try await TopSnapshot.read(from: client, previous: snapshot, samplesAvailable: &samplesAvailable)
            problem = nil
        } catch {
            // Keep the last frame and say what is wrong; the next tick tries again.
            problem = "\(error) — trying again"
        }
    }

    private func draw() {
        let lines = TopScreen(size: Terminal.size()).lines(snapshot, problem: problem)
        Terminal.write(ANSI.home + lines.map { $0 + ANSI.clearToEndOfLine }.joined(separator: "\r\n") + ANSI.clearToEndOfScreen)
    }
}

import Foundation
import LullAPI
import LullClient

/// One run of `watch`: merges the event stream, a clock tick and terminal signals into one loop
/// that owns the board and draws it, so no state is shared between tasks.
struct WatchSession {
    enum Mode { case live, plain, json }

    /// How a watch ended: every job ended, or a signal (ctrl-c) stopped the watching.
    enum Ending: Equatable {
        case jobsEnded
        case stopped(signal: Int32)
    }

    private enum Input: Sendable {
        case event(EventView)
        case tick
        case refreshed(JobView)
        case signal(TerminalSignal)
        case failed(any Error)
    }

    private(set) var board: WatchBoard
    let mode: Mode
    private let renderer = WatchRenderer()
    private var drawnLines = 0

    init(board: WatchBoard, mode: Mode) {
        self.board = board
        self.mode = mode
    }

    mutating func run(client: LullClient, after cursor: Int64, reconnectWithin: Duration) async throws -> Ending {
        // On a terminal, signals are caught before the cursor is hidden, so none can end the
        // process with it hidden; into a pipe they keep their default action.
        let signals = mode == .live ? TerminalSignals.stream(stopOn: [SIGINT, SIGTERM, SIGHUP]) : nil
        if mode == .plain { printInitialLines() }
        if mode == .live {
            Terminal.write(ANSI.hideCursor)
            draw()
        }
        defer { if mode == .live { Terminal.write(ANSI.showCursor) } }
        guard !board.allEnded else { return finish() }

        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let ids = board.ids
        let queued = SharedIDs(board.queuedIDs)
        let live = mode == .live
        let producers = [
            Task {
                do {
                    for try await event in client.followEvents(after: cursor, reconnectWithin: reconnectWithin)
                    where ids.contains(event.jobId) {
                        continuation.yield(.event(event))
                    }
                } catch {
                    continuation.yield(.failed(error))
                }
            },
            Task {
                // Ticks redraw the elapsed times of a live view; plain lines and JSON need none.
                guard live else { return }
                while (try? await Task.sleep(for: .seconds(1))) != nil { continuation.yield(.tick) }
            },
            Task {
                // Why a queued job waits changes without an event (the world moved): ask again
                // now and then. Here rather than in the loop below: while the daemon is away each
                // call waits out the connect timeout, and the loop must stay free for the events,
                // the signals and the stream's verdict that the daemon is gone for good.
                while (try? await Task.sleep(for: .seconds(3))) != nil {
                    for id in queued.current where !Task.isCancelled {
                        if let job = try? await client.job(id) { continuation.yield(.refreshed(job)) }
                    }
                }
            },
            Task {
                guard let signals else { return }
                for await signal in signals {
                    continuation.yield(.signal(signal))
                }
            },
        ]
        defer { for producer in producers { producer.cancel() } }

        for await input in inputs {
            switch input {
            case .event(let event):
                guard let (job, changed) = board.apply(event) else { continue }
                switch mode {
                case .json: try printEvent(event)
                case .plain: printPlain(job, stateChanged: changed)
                case .live: draw()
                }
            case .tick:
                draw()
            case .refreshed(let job):
                // Only a job still queued here: events are newer than an answer that crossed them.
                guard board.queuedIDs.contains(job.id) else { continue }
                board.refresh(from: job)
                if mode == .live { draw() }
            case .signal(.resized):
                if mode == .live { draw() }
            case .signal(.stop(let signal)):
                if mode == .live { Terminal.write("stopped watching; the jobs go on (lullctl list shows them)\n") }
                return .stopped(signal: signal)
            case .failed(let error):
                // The event stream reconnects to a restarting daemon for a while (--reconnect-for);
                // this is its verdict that the daemon stayed away.
                if mode == .live { Terminal.write("\n") }
                throw error
            }
            queued.current = board.queuedIDs
            if board.allEnded { return finish() }
        }
        return .jobsEnded
    }

    private func finish() -> Ending {
        if mode != .json { print(board.summary()) }
        StandardOutput.flush()
        return .jobsEnded
    }

    /// Redraws the block in place: back to its first line, every line rewritten and cleared to its end.
    private mutating func draw() {
        let size = Terminal.size()
        // One row is left for the cursor below the block: the newline after the last line.
        let lines = renderer.lines(board, width: size.columns - 1, height: size.rows - 1, now: Date())
        var frame = ANSI.up(drawnLines)
        for line in lines { frame += line + ANSI.clearToEndOfLine + "\n" }
        frame += ANSI.clearToEndOfScreen
        Terminal.write(frame)
        drawnLines = lines.count
    }

    private mutating func printInitialLines() {
        let now = Date()
        for job in board.jobs {
            guard let (line, step) = renderer.plainLine(for: job, stateChanged: true, now: now) else { continue }
            print(line)
            board.markPrinted(job.id, step: step)
        }
        StandardOutput.flush()
    }

    private mutating func printPlain(_ job: WatchedJob, stateChanged: Bool) {
        guard let (line, step) = renderer.plainLine(for: job, stateChanged: stateChanged, now: Date()) else { return }
        print(line)
        StandardOutput.flush()
        board.markPrinted(job.id, step: step)
    }

    private func printEvent(_ event: EventView) throws {
        print(String(decoding: try WireJSON.encoder(sortedKeys: true).encode(event), as: UTF8.self))
        StandardOutput.flush()
    }
}

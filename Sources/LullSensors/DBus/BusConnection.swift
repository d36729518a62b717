import CSystemd
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A connection to a D-Bus bus, driven by its own thread.
///
/// sd-bus is not thread-safe, and waiting for bus traffic blocks, so each connection owns one
/// dedicated thread that does everything with the `sd_bus*`: it connects, runs the work that
/// callers enqueue with ``perform(_:)``, dispatches signal handlers, and sleeps in `poll(2)`
/// on the bus fd plus a wake pipe used to wake it for new work or for ``close()``. Nothing
/// here blocks the Swift cooperative pool.
package final class BusConnection: @unchecked Sendable {
    // @unchecked: `context` is only touched on `thread`; everything else is a Mutex, an
    // Atomic or immutable.
    package typealias Work = @Sendable (BusContext?) -> Void

    private struct Queue {
        var work: [Work] = []
        /// No more work is accepted.
        var closed = false
        /// The thread has left its loop and closed the wake pipe.
        var finished = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let endpoint: BusEndpoint
    private let queue = Mutex(Queue())
    private let wakePipe: WakePipe
    private var context: BusContext?
    private let onDisconnect: Mutex<(@Sendable () -> Void)?> = Mutex(nil)

    private init(endpoint: BusEndpoint, wakePipe: WakePipe) {
        self.endpoint = endpoint
        self.wakePipe = wakePipe
    }

    /// Connects (on the connection's own thread) and returns once the bus answered `Hello`.
    package static func connect(_ endpoint: BusEndpoint, name: String = "lull-dbus") async throws -> BusConnection {
        let pipe: WakePipe
        do { pipe = try WakePipe() } catch { throw BusError(operation: "pipe2", errno: Glibc.errno) }
        let connection = BusConnection(endpoint: endpoint, wakePipe: pipe)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let thread = Thread { connection.run(connected: continuation) }
            thread.name = name
            thread.stackSize = 512 * 1024
            thread.start()
        }
        return connection
    }

    /// Called once (on the bus thread) when the bus goes away by itself.
    package func setDisconnectHandler(_ handler: @escaping @Sendable () -> Void) {
        onDisconnect.withLock { $0 = handler }
    }

    /// Runs `body` on the bus thread and returns its result.
    package func perform<T: Sendable>(_ body: @escaping @Sendable (BusContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { context in
                guard let context else { return continuation.resume(throwing: BusError.closed) }
                do { continuation.resume(returning: try body(context)) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Connects, runs `body` once on the new connection and closes it: for a question asked
    /// once, with nothing (no match, no subscription) to keep a connection open for.
    package static func once<T: Sendable>(
        _ endpoint: BusEndpoint,
        name: String,
        _ body: @escaping @Sendable (BusContext) throws -> T
    ) async throws -> T {
        let connection = try await connect(endpoint, name: name)
        do {
            let value = try await connection.perform(body)
            await connection.close()
            return value
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Stops the thread and closes the bus. Pending work fails with a closed error.
    package func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = queue.withLock { queue -> Bool in
                if queue.finished { return true }
                queue.closed = true
                queue.exitWaiters.append(continuation)
                wakePipe.wake()
                return false
            }
            if finished { continuation.resume() }
        }
    }

    private func enqueue(_ work: @escaping Work) {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.work.append(work)
            // Woken under the lock: the thread closes the pipe only after marking itself
            // finished under the same lock, so this never writes to a closed fd.
            wakePipe.wake()
            return true
        }
        if !accepted { work(nil) }
    }

    /// Marks the thread finished, closes the wake pipe, and releases close() callers.
    private func finish() -> [Work] {
        let (leftovers, waiters) = queue.withLock { queue -> ([Work], [CheckedContinuation<Void, Never>]) in
            queue.closed = true
            queue.finished = true
            defer {
                queue.work.removeAll()
                queue.exitWaiters.removeAll()
            }
            return (queue.work, queue.exitWaiters)
        }
        wakePipe.close()
        for waiter in waiters { waiter.resume() }
        return leftovers
    }

    // MARK: the bus thread

    private func run(connected: CheckedContinuation<Void, Error>) {
        var bus: OpaquePointer? = nil
        do {
            bus = try Self.open(endpoint)
        } catch {
            _ = finish()
            connected.resume(throwing: error)
            return
        }
        let context = BusContext(bus: bus!)
        self.context = context
        // Make sure the connection works (the Hello reply) before reporting success.
        do {
            _ = try context.call(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "GetId"
            )
            connected.resume()
        } catch {
            context.tearDown()
            self.context = nil
            _ = finish()
            connected.resume(throwing: error)
            return
        }
        let disconnected = loop(context)
        context.tearDown()
        self.context = nil
        // Fail whatever is still queued.
        for work in finish() { work(nil) }
        if disconnected, let handler = onDisconnect.withLock({ $0 }) { handler() }
    }

    /// Returns true when the bus went away by itself, false on close().
    private func loop(_ context: BusContext) -> Bool {
        let bus = context.bus
        while true {
            let (work, closed) = queue.withLock { queue -> ([Work], Bool) in
                defer { queue.work.removeAll() }
                return (queue.work, queue.closed)
            }
            if closed {
                for item in work { item(nil) }
                return false
            }
            for item in work { item(context) }
            let r = sd_bus_process(bus, nil)
            if r < 0 { return true }
            if r > 0 { continue }

            let busFD = sd_bus_get_fd(bus)
            let events = sd_bus_get_events(bus)
            if busFD < 0 || events < 0 { return true }
            var deadline: UInt64 = 0
            var timeout: Int32 = -1
            if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
                timeout = deadline <= nowUsec ? 0 : Int32(min((deadline - nowUsec + 999) / 1000, UInt64(Int32.max)))
            }
            var fds = [
                pollfd(fd: busFD, events: Int16(events), revents: 0),
                pollfd(fd: wakePipe.readFD, events: Int16(POLLIN), revents: 0),
            ]
            let p = poll(&fds, 2, timeout)
            if p < 0 && errno != EINTR { return true }
            if fds[1].revents != 0 { wakePipe.drain() }
        }
    }

    private static func open(_ endpoint: BusEndpoint) throws -> OpaquePointer {
        var bus: OpaquePointer? = nil
        switch endpoint {
        case .system:
            let r = sd_bus_open_system(&bus)
            guard r >= 0, let bus else { throw BusError(operation: "connect to the system bus", errno: -r) }
            return bus
        case .user:
            let r = sd_bus_open_user(&bus)
            guard r >= 0, let bus else { throw BusError(operation: "connect to the user bus", errno: -r) }
            return bus
        case .address(let address):
            var r = sd_bus_new(&bus)
            guard r >= 0, let bus else { throw BusError(operation: "sd_bus_new", errno: -r) }
            r = sd_bus_set_address(bus, address)
            if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
            if r >= 0 { r = sd_bus_start(bus) }
            guard r >= 0 else {
                sd_bus_unref(bus)
                throw BusError(operation: "connect to \(address)", errno: -r)
            }
            return bus
        }
    }
}

/// The sd-bus connection as seen from its own thread: method calls, property reads, signal
/// subscriptions. Never leaves that thread.
package final class BusContext {
    let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<SignalHandler>] = []
    /// Per-call timeout (sd-bus counts microseconds).
    var callTimeoutUsec: UInt64 = 5_000_000

    final class SignalHandler {
        let body: (BusMessage) -> Void
        init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
    }

    init(bus: OpaquePointer) {
        self.bus = bus
    }

    func tearDown() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots.removeAll()
        for handler in handlers { handler.release() }
        handlers.removeAll()
        sd_bus_flush_close_unref(bus)
    }

    /// Calls a method and returns the reply.
    @discardableResult
    package func call(
        destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [DBusValue] = [],
        variantArguments: Set<Int> = []
    ) throws -> BusMessage {
        try call(destination: destination, path: path, interface: interface, member: member) { message in
            for (index, argument) in arguments.enumerated() {
                if variantArguments.contains(index) {
                    try message.appendVariant(argument)
                } else {
                    try message.append(argument)
                }
            }
        }
    }

    /// Builds a method call with `write` and sends it.
    func call(
        destination: String,
        path: String,
        interface: String,
        member: String,
        write: (BusMessage) throws -> Void
    ) throws -> BusMessage {
        var raw: OpaquePointer? = nil
        var r = sd_bus_message_new_method_call(bus, &raw, destination, path, interface, member)
        guard r >= 0, let raw else { throw BusError(operation: "\(interface).\(member)", errno: -r) }
        let message = BusMessage(adopting: raw)
        try write(message)
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer? = nil
        r = sd_bus_call(bus, message.raw, callTimeoutUsec, &error, &reply)
        guard r >= 0, let reply else {
            throw BusError(
                operation: "\(destination) \(path) \(interface).\(member)",
                errno: -r,
                name: error.name.map { String(cString: $0) },
                message: error.message.map { String(cString: $0) }
            )
        }
        return BusMessage(adopting: reply)
    }

    package func getAll(destination: String, path: String, interface: String) throws -> [String: DBusValue] {
        let reply = try call(
            destination: destination,
            path: path,
            interface: "org.freedesktop.DBus.Properties",
            member: "GetAll",
            arguments: [.string(interface)]
        )
        return try reply.read().stringDictionary ?? [:]
    }

    package func get(destination: String, path: String, interface: String, property: String) throws -> DBusValue {
        let reply = try call(
            destination: destination,
            path: path,
            interface: "org.freedesktop.DBus.Properties",
            member: "Get",
            arguments: [.string(interface), .string(property)]
        )
        return try reply.read().unwrapped
    }

    func set(destination: String, path: String, interface: String, property: String, value: DBusValue) throws {
        try call(
            destination: destination,
            path: path,
            interface: "org.freedesktop.DBus.Properties",
            member: "Set",
            arguments: [.string(interface), .string(property), value],
            variantArguments: [2]
        )
    }

    /// Whether `name` has an owner now, or can be started by bus activation.
    func nameIsAvailable(_ name: String) throws -> Bool {
        let owned =
            try call(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "NameHasOwner",
                arguments: [.string(name)]
            ).read().bool ?? false
        if owned { return true }
        let activatable = try call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "ListActivatableNames"
        ).read()
        return activatable.array?.contains { $0.string == name } ?? false
    }

    /// Subscribes to a signal. `match` is a D-Bus match rule
    /// (`type='signal',sender='...',path='...'`); the handler runs on the bus thread.
    package func addMatch(_ match: String, handler: @escaping (BusMessage) -> Void) throws {
        let box = Unmanaged.passRetained(SignalHandler(handler))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match(
            bus,
            &slot,
            match,
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let handler = Unmanaged<BusContext.SignalHandler>.fromOpaque(userdata).takeUnretainedValue()
                handler.body(BusMessage(retaining: message))
                return 0
            },
            box.toOpaque()
        )
        guard r >= 0, let slot else {
            box.release()
            throw BusError(operation: "add match \(match)", errno: -r)
        }
        slots.append(slot)
        handlers.append(box)
    }

    /// `PropertiesChanged` from `sender` on `path`: the handler gets the interface, the changed
    /// values and the names of invalidated properties.
    func onPropertiesChanged(
        sender: String,
        path: String,
        handler: @escaping (_ interface: String, _ changed: [String: DBusValue], _ invalidated: [String]) -> Void
    ) throws {
        let rule =
            "type='signal',sender='\(sender)',path='\(path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        try addMatch(rule) { message in
            guard let args = try? message.readAll(), args.count >= 2, let interface = args[0].string else { return }
            let changed = args[1].stringDictionary ?? [:]
            let invalidated = args.count > 2 ? (args[2].array ?? []).compactMap(\.string) : []
            handler(interface, changed, invalidated)
        }
    }

    /// Tells when `name` gets a new owner (`true`) or loses its owner (`false`).
    func onNameOwnerChanged(_ name: String, handler: @escaping (_ hasOwner: Bool) -> Void) throws {
        let rule =
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
        try addMatch(rule) { message in
            guard let args = try? message.readAll(), args.count == 3, let newOwner = args[2].string else { return }
            handler(!newOwner.isEmpty)
        }
    }
}

/// A fixed-capacity FIFO that overwrites its oldest element when full. Memory is bounded by
/// `capacity` whatever runs for how long.
public struct RingBuffer<Element> {
    public let capacity: Int
    private var storage: [Element?]
    private var head = 0  // index of the oldest element
    public private(set) var count = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer needs room for at least one element")
        self.capacity = capacity
        self.storage = Array(repeating: nil, count: capacity)
    }

    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ element: Element) {
        if count < capacity {
            storage[(head + count) % capacity] = element
            count += 1
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    public mutating func removeAll() {
        storage = Array(repeating: nil, count: capacity)
        head = 0
        count = 0
    }

    /// Oldest first.
    public var elements: [Element] {
        (0..<count).map { storage[(head + $0) % capacity]! }
    }

    public var last: Element? {
        count == 0 ? nil : storage[(head + count - 1) % capacity]
    }

    public var first: Element? {
        count == 0 ? nil : storage[head]
    }
}

extension RingBuffer: Sendable where Element: Sendable {}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shell-style patterns over interface names (`wwan*`, `usb[0-9]`), as `fnmatch(3)` reads them.
public struct InterfacePatterns: Sendable, Equatable, ExpressibleByArrayLiteral {
    public var patterns: [String]

    public init(_ patterns: [String]) {
        self.patterns = patterns
    }

    public init(arrayLiteral elements: String...) {
        self.patterns = elements
    }

    public var isEmpty: Bool { patterns.isEmpty }

    /// Whether `name` matches any of the patterns.
    public func matches(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }
}

/// Refuses object keys a type does not know. Decoding errors it raises carry the offending key
/// in their coding path and `StrictKeys.marker` in their description.
public enum StrictKeys {
    public static let marker = "unknown field"

    /// The decoder's object keyed by `Keys`, once every key in it has been found among `Keys`.
    ///
    /// One container serves the check and the decoding: JSONDecoder gathers an object's members
    /// into a dictionary each time a keyed container is made, and a second container for the
    /// check alone cost about a tenth of a submission's instructions.
    @inlinable public static func container<Keys: CodingKey>(
        _ decoder: any Decoder,
        keyedBy: Keys.Type
    ) throws -> StrictDecodingContainer<Keys> {
        let container = try decoder.container(keyedBy: StrictKey<Keys>.self)
        var present: [String] = []
        for key in container.allKeys {
            guard key.known != nil else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath + [key],
                        debugDescription: marker
                    )
                )
            }
            present.append(key.stringValue)
        }
        return StrictDecodingContainer(base: container, present: present)
    }
}

/// Any key of an object, with the `Known` key it spells when there is one: a container keyed by
/// it lists unknown keys too, which one keyed by `Known` would silently leave out.
public struct StrictKey<Known: CodingKey>: CodingKey {
    @usableFromInline let known: Known?
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) {
        self.known = Known(stringValue: stringValue)
        self.stringValue = stringValue
    }

    public init?(intValue: Int) { nil }

    @inlinable init(_ key: Known) {
        self.known = key
        self.stringValue = key.stringValue
    }
}

/// A keyed container that answers to the type's own keys. The common scalar types have their
/// own overloads, as `KeyedDecodingContainer` has, so they keep the decoder's direct paths.
/// Inlinable, so each caller's module specializes it for its keys: unspecialized, every field
/// looked up the generic metadata of the key and container types (some 70k instructions per
/// submission).
///
/// An object names a few of the many optional keys a type has: `decodeIfPresent` answers nil for
/// one it does not name from the short list of names it has, without asking the decoder, whose
/// lookup of an absent key cost a submission about as much as decoding the keys it has.
public struct StrictDecodingContainer<Keys: CodingKey> {
    @usableFromInline let base: KeyedDecodingContainer<StrictKey<Keys>>
    /// The names of the object's members, all known.
    @usableFromInline let present: [String]

    @usableFromInline init(base: KeyedDecodingContainer<StrictKey<Keys>>, present: [String]) {
        self.base = base
        self.present = present
    }

    @inlinable public func contains(_ key: Keys) -> Bool { present.contains(key.stringValue) }

    @inlinable public func decode<T: Decodable>(_ type: T.Type, forKey key: Keys) throws -> T {
        try base.decode(type, forKey: StrictKey(key))
    }
    @inlinable public func decode(_ type: String.Type, forKey key: Keys) throws -> String {
        try base.decode(type, forKey: StrictKey(key))
    }
    @inlinable public func decode(_ type: Double.Type, forKey key: Keys) throws -> Double {
        try number(type, key) { try base.decode(type, forKey: $0) }
    }

    @inlinable public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Keys) throws -> T? {
        guard contains(key) else { return nil }
        return try base.decodeIfPresent(type, forKey: StrictKey(key))
    }
    @inlinable public func decodeIfPresent(_ type: String.Type, forKey key: Keys) throws -> String? {
        guard contains(key) else { return nil }
        return try base.decodeIfPresent(type, forKey: StrictKey(key))
    }
    @inlinable public func decodeIfPresent(_ type: Bool.Type, forKey key: Keys) throws -> Bool? {
        guard contains(key) else { return nil }
        return try base.decodeIfPresent(type, forKey: StrictKey(key))
    }
    @inlinable public func decodeIfPresent(_ type: Int.Type, forKey key: Keys) throws -> Int? {
        guard contains(key) else { return nil }
        return try number(type, key) { try base.decodeIfPresent(type, forKey: $0) }
    }
    @inlinable public func decodeIfPresent(_ type: Int64.Type, forKey key: Keys) throws -> Int64? {
        guard contains(key) else { return nil }
        return try number(type, key) { try base.decodeIfPresent(type, forKey: $0) }
    }
    @inlinable public func decodeIfPresent(_ type: Double.Type, forKey key: Keys) throws -> Double? {
        guard contains(key) else { return nil }
        return try number(type, key) { try base.decodeIfPresent(type, forKey: $0) }
    }

    @inlinable public func decode<T: Decodable & CaseIterable & RawRepresentable>(
        _ type: T.Type,
        forKey key: Keys
    ) throws -> T
    where T.RawValue == String {
        try choice(type, key) { try base.decode(type, forKey: $0) }
    }
    @inlinable public func decodeIfPresent<T: Decodable & CaseIterable & RawRepresentable>(
        _ type: T.Type,
        forKey key: Keys
    ) throws -> T?
    where T.RawValue == String {
        guard contains(key) else { return nil }
        return try choice(type, key) { try base.decodeIfPresent(type, forKey: $0) }
    }

    /// An enumeration's error names the values it takes, so the client need not look them up.
    @inlinable func choice<T: CaseIterable & RawRepresentable, R>(
        _ type: T.Type,
        _ key: Keys,
        _ decode: (StrictKey<Keys>) throws -> R
    ) throws -> R where T.RawValue == String {
        do {
            return try decode(StrictKey(key))
        } catch DecodingError.dataCorrupted {
            throw dataCorrupted(forKey: key, "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The error for a value present under `key` but not acceptable. `problem` says what the
    /// value must be ("must be ..."); the wire error shows it after the field's name.
    @inlinable public func dataCorrupted(forKey key: Keys, _ problem: String) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(
                codingPath: base.codingPath + [StrictKey(key)],
                debugDescription: problem,
                underlyingError: FieldProblem(problem: problem)
            )
        )
    }

    /// JSONDecoder throws its own internal error for a number its type cannot hold (`1.5` or
    /// `1e30` for an integer) and turns it into corrupt data without a coding path at the top,
    /// which would read as "not valid JSON"; this names the field and calls it the type
    /// mismatch it is.
    @inlinable func number<T>(_ type: Any.Type, _ key: Keys, _ decode: (StrictKey<Keys>) throws -> T) throws -> T {
        do {
            return try decode(StrictKey(key))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.typeMismatch(
                type,
                .init(
                    codingPath: base.codingPath + [StrictKey(key)],
                    debugDescription: "the number does not fit \(type)",
                    underlyingError: error
                )
            )
        }
    }
}

/// What was wrong with a field's value, in words for the user (see `dataCorrupted(forKey:_:)`).
public struct FieldProblem: Error, Sendable {
    public let problem: String

    @inlinable public init(problem: String) { self.problem = problem }
}

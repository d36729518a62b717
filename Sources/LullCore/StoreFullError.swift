/// The job store could not write because the filesystem holding it is full (or the owner's
/// quota is used up). Nothing was changed; reads still work; writes work again once there is
/// space. The API answers it as `507 no_space`.
public struct StoreFullError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store file.
    public var path: String

    public init(path: String) { self.path = path }

    public var description: String { "the filesystem holding \(path) is full" }
}

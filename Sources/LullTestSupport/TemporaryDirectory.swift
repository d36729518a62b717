import Foundation

/// Runs `body` with a new directory under the system's temporary directory, named
/// `lull-<prefix>-<random>`, and removes it with everything in it afterwards. A temporary
/// directory that cannot be made stops the test run: nothing a test checks could hold.
public func withTemporaryDirectory<T>(_ prefix: String = "test", _ body: (String) async throws -> T) async rethrows -> T
{
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "lull-\(prefix)-\(UUID().uuidString.prefix(8))"
    ).path
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

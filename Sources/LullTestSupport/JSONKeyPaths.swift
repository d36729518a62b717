import Foundation

/// Every key path in a JSON document (`.jobs[0].waiting_for[1].code`), so two documents that
/// decode alike can also be checked for a key written as null in one and left out in the other.
public func jsonKeyPaths(_ data: some Sequence<UInt8>) throws -> Set<String> {
    keyPaths(try JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed]), at: "")
}

private func keyPaths(_ value: Any, at path: String) -> Set<String> {
    var paths: Set<String> = []
    if let object = value as? [String: Any] {
        for (key, member) in object {
            paths.insert(path + "." + key)
            paths.formUnion(keyPaths(member, at: path + "." + key))
        }
    } else if let array = value as? [Any] {
        for (index, element) in array.enumerated() { paths.formUnion(keyPaths(element, at: path + "[\(index)]")) }
    }
    return paths
}

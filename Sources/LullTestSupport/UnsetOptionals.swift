/// The paths of every optional stored property left nil in `value`, nested values, enum
/// payloads and collection elements included (`.result.accounting`), and of every empty
/// collection (`.waitingFor[]`: its elements' fields go unchecked). A test value meant to have
/// every field set uses it to stay complete: a field added to the type later shows up here
/// until the test sets it.
public func unsetOptionals(in value: Any, at path: String = "") -> [String] {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
        guard let wrapped = mirror.children.first?.value else { return [path] }
        return unsetOptionals(in: wrapped, at: path)
    case .struct, .class, .enum, .tuple:
        return mirror.children.flatMap { child in
            unsetOptionals(in: child.value, at: path + "." + (child.label ?? "?"))
        }
    case .collection, .set:
        guard !mirror.children.isEmpty else { return [path + "[]"] }
        return mirror.children.enumerated().flatMap { index, child in
            unsetOptionals(in: child.value, at: path + "[\(index)]")
        }
    case .dictionary:
        guard !mirror.children.isEmpty else { return [path + "[:]"] }
        return mirror.children.flatMap { child in unsetOptionals(in: child.value, at: path + "[…]") }
    default:
        return []
    }
}

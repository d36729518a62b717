/// One of a fixed set of words, spelled exactly as the API spells it (`not_cellular`, `expire`).
public enum ChoiceArgument {
    public static func parse<Choice: RawRepresentable & CaseIterable>(
        _ text: String,
        as type: Choice.Type = Choice.self
    ) throws(ArgumentValueError) -> Choice where Choice.RawValue == String {
        if let choice = Choice(rawValue: text) { return choice }
        throw ArgumentValueError("\"\(text)\" is not one of \(values(of: type).joined(separator: ", "))")
    }

    /// Every accepted word, in declaration order.
    public static func values<Choice: RawRepresentable & CaseIterable>(of type: Choice.Type) -> [String]
    where Choice.RawValue == String {
        type.allCases.map(\.rawValue)
    }
}

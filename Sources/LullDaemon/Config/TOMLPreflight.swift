/// Refuses, before parsing, the one kind of input the bundled TOML parser (toml++ inside
/// TOMLKit) trips over instead of reporting: a table header whose name starts with a character
/// no key can start with (`[=`, `[[[a]]]`, `[.x]`). toml++ asserts on those — an abort in a
/// debug build, undefined behaviour in a release one (fixed upstream in tomlplusplus#301, not
/// in the version TOMLKit bundles). The property-based config fuzzer found it; a typo in a
/// config file must never take the daemon down on a reload.
enum TOMLPreflight {
    static func problems(in text: String, file: String) -> [ConfigError.Problem] {
        var problems: [ConfigError.Problem] = []
        // Every line that starts with "[" is checked, even inside a multi-line string or array:
        // telling those apart needs a tokenizer, and no Lull setting is a multi-line string or a
        // nested array, so such a line is an error either way. Scalars, not characters: "\r\n"
        // is one Character, and a key's first byte is what the parser looks at.
        for (index, line) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line.drop { $0 == " " || $0 == "\t" }
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst()
            let leadingSpace = rest.first == " " || rest.first == "\t"
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "[" && !leadingSpace {
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            }
            if let first = rest.first, first == "]" || first == "\"" || first == "'" || isBareKeyCharacter(first) {
                continue
            }
            let found = rest.first.map { "\"\($0.escaped(asASCII: true))\"" } ?? "the end of the line"
            problems.append(
                .init(
                    file: file,
                    line: index + 1,
                    message: "a table header must start with a name, as in [classes.bulk]; found \(found)"
                )
            )
        }
        return problems
    }

    static func isBareKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}

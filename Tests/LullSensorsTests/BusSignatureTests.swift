import Testing

@testable import LullSensors

/// The signature walk that writes `StartTransientUnit`'s arguments: complete types split off
/// a signature, and the type a variant's value is written as.
@Suite struct BusSignatureTests {
    @Test func completeTypesAreSplitOffASignature() {
        let signature: Substring = "ssa(sv)a(sa(sv))"
        var rest = signature
        var types: [String] = []
        while let type = BusMessage.firstCompleteType(of: rest) {
            types.append(String(type))
            rest = rest.dropFirst(type.count)
        }
        #expect(types == ["s", "s", "a(sv)", "a(sa(sv))"])
        #expect(BusMessage.firstCompleteType(of: "a{sv}i").map(String.init) == "a{sv}")
        #expect(BusMessage.firstCompleteType(of: "(sa") == nil, "an unclosed structure is no type")
    }

    @Test func aVariantsValueSaysItsOwnType() throws {
        let execStart = DBusValue.array([.structure([.string("/bin/sh"), .array([.string("sh")]), .bool(false)])])
        #expect(try BusMessage.signature(of: execStart) == "a(sasb)")
        #expect(try BusMessage.signature(of: .uint64(1)) == "t")
        #expect(try BusMessage.signature(of: .unixFileDescriptor(3)) == "h")
        #expect(throws: BusError.self) { try BusMessage.signature(of: .array([])) }
    }
}

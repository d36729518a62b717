import Foundation
import LullCore

extension JSONWritable {
    /// The whole JSON document for this value, in the API's dialect (`WireJSON`).
    public func jsonBytes() throws -> [UInt8] {
        var writer = JSONWriter(encoder: { WireJSON.encoder() })
        try write(to: &writer)
        return writer.bytes
    }
}

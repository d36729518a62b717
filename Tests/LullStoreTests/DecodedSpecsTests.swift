import Foundation
import LullCore
import Testing

@testable import LullStore

/// The store keeps decoded specs by their text: bounded in count and in the size of what it keeps.
@Suite struct DecodedSpecsTests {
    func text(_ url: String) throws -> String {
        try JobSpec(.fetch(FetchJob(url: url, destination: "/tmp/d"))).storedJSON()
    }

    @Test func smallSpecsAreDecodedOnceAndLargeOnesEveryTime() throws {
        let specs = DecodedSpecs(capacity: 2, largest: 200)
        var decodes = 0
        func read(_ json: String) throws -> JobSpec {
            try specs.spec(json) { json in
                decodes += 1
                return try JSONDecoder().decode(JobSpec.self, from: Data(json.utf8))
            }
        }
        let small = try text("http://h/a")
        #expect(small.utf8.count <= 200)
        #expect(try read(small).payload.fetch?.url == "http://h/a")
        #expect(try read(small).payload.fetch?.url == "http://h/a")
        #expect(decodes == 1)

        let large = try text("http://h/" + String(repeating: "x", count: 300))
        _ = try read(large)
        _ = try read(large)
        #expect(decodes == 3, "a spec over `largest` bytes is not kept")
        #expect(specs.count == 1)

        // A third small spec past the capacity of two starts the cache over.
        _ = try read(try text("http://h/b"))
        _ = try read(try text("http://h/c"))
        #expect(specs.count == 1)
        _ = try read(small)
        #expect(decodes == 6)
    }
}

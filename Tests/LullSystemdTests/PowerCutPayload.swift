import Foundation
import LullTestSupport

/// What one power-cut run gives its guest: a read-only disk with lulld and lullctl as
/// `make install-files` lays them out (with the Swift runtime the debug build links), the guest
/// scripts from `Tests/Fixtures/powercut/`, and the files the guest serves and uploads; plus the
/// two disks the cuts are made under, the root (a copy of the cached image: the store is in
/// `/var/lib/lull`) and a data disk for the downloads (`/srv`, a filesystem of its own, as
/// `/home` often is, so the store's fsyncs do not commit its journal for it).
struct PowerCutPayload {
    /// Served by the guest's HTTP server, fetched into `/srv/dl`.
    static let servedSizes = [64 << 10, 1 << 20, 4 << 20, 12 << 20, 24 << 20]
    /// Upload sources.
    static let sourceSizes = [256 << 10, 1 << 20, 3 << 20]

    let directory: String
    var rootDisk: String { directory + "/root.img" }
    var dataDisk: String { directory + "/data.img" }
    var payloadDisk: String { directory + "/payload.img" }
    /// name → SHA-256.
    private(set) var served: [String: String] = [:]
    private(set) var sources: [String: String] = [:]

    static var fixtures: String { SystemdEnvironment.repository + "/Tests/Fixtures/powercut" }

    init(image: GuestImage) throws {
        directory = GuestImage.cacheDirectory + "/run-\(getpid())-\(UUID().uuidString.prefix(6))"
        let staging = directory + "/payload"
        try FileManager.default.createDirectory(atPath: staging + "/root", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: staging + "/files", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: staging + "/sources", withIntermediateDirectories: true)

        try GuestPayloadDisk.stageLull(into: staging)
        for name in [
            "boot.sh", "agent.py", "server.py", "lull.toml", "lulld-test.conf", "lull0.netdev", "lull0.network",
        ] {
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: staging + "/" + name)
        }
        for (index, size) in Self.servedSizes.enumerated() {
            let bytes = TestHTTPServer.bytes(count: size, seed: UInt64(300 + index))
            try Data(bytes).write(to: URL(fileURLWithPath: "\(staging)/files/f\(index).bin"))
            served["f\(index).bin"] = TestHTTPServer.sha256(bytes)
        }
        for (index, size) in Self.sourceSizes.enumerated() {
            let bytes = TestHTTPServer.bytes(count: size, seed: UInt64(400 + index))
            try Data(bytes).write(to: URL(fileURLWithPath: "\(staging)/sources/s\(index).bin"))
            sources["s\(index).bin"] = TestHTTPServer.sha256(bytes)
        }
        let manifest = try JSONSerialization.data(withJSONObject: ["files": served, "sources": sources])
        try manifest.write(to: URL(fileURLWithPath: staging + "/manifest.json"))

        try GuestPayloadDisk.makePayload(payloadDisk, from: staging)
        try GuestPayloadDisk.makeFilesystem(dataDisk, label: "lulldata", megabytes: 1024, from: nil)
        try GuestPayloadDisk.check("/bin/cp", ["--sparse=always", image.root, rootDisk])
        try? FileManager.default.removeItem(atPath: staging)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

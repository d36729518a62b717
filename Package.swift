// swift-tools-version:6.1
import PackageDescription

/// How the programs that ship are linked, for a smaller start: lld with packed relative
/// relocations (DT_RELR) and no dynamic export of every symbol, which `--static-swift-stdlib`
/// asks for. Nothing looks symbols up in the program itself: lulld installs Swift Concurrency's
/// executor hooks through the linker (`EventLoopGlobalExecutor`). docs/performance.md has the
/// figures.
let lean: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux])
    )
]

/// `lullctl` is also linked as a fixed-address executable: a position-independent one has the
/// loader write every absolute pointer in its data (Swift metadata and witness tables) at each
/// start, copying those pages: a cost each one-shot command pays (docs/performance.md). lullctl
/// runs as whoever starts it, root included, for one command, and reads only what a daemon
/// answers on a Unix socket; lulld, which serves every local user and stays up, keeps the
/// randomised address of a PIE.
let leanClient: [LinkerSetting] =
    lean + [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux]))]

let package = Package(
    name: "Lull",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lulld", targets: ["lulld"]),
        .executable(name: "lullctl", targets: ["lullctl"]),
        .library(name: "LullClient", targets: ["LullClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // libsystemd (sd-daemon, sd-journal, sd-bus) through pkg-config.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Thread-local filesystem identity switching (setfsuid/setfsgid/setgroups) for transfers,
        // and the Swift Concurrency global executor hook the daemon puts on its event loops.
        .target(name: "CLullSys"),
        // Reads and writes of the kernel's small files (/proc, /sys, cgroupfs), for the adapters.
        .target(name: "LullKernelFiles"),
        // Pure domain: jobs, validation, scheduling decisions. No I/O.
        .target(
            name: "LullCore",
            dependencies: [
                .product(name: "Collections", package: "swift-collections")
            ]
        ),
        // Wire types shared by the daemon and its clients.
        .target(
            name: "LullAPI",
            dependencies: ["LullCore"]
        ),
        // SQLite persistence: migrations, jobs, the event log, group commit.
        .target(
            name: "LullStore",
            dependencies: [
                "LullCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API, for the writer's WAL hook (WALCheckpointer).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Sensors: power (UPower / sysfs), network (NetworkManager / rtnetlink), pressure and sampling.
        .target(
            name: "LullSensors",
            dependencies: [
                "LullCore", "CSystemd", "CLullSys", "LullKernelFiles",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Transfer engines over AsyncHTTPClient.
        .target(
            name: "LullTransfer",
            dependencies: [
                "LullCore", "CLullSys", "LullKernelFiles",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The daemon: config, control server, dispatcher, systemd glue, wiring.
        .target(
            name: "LullDaemon",
            dependencies: [
                "LullCore", "LullAPI", "LullStore", "LullTransfer", "LullSensors", "CSystemd", "CLullSys",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Client library over the Unix socket, used by lullctl; also the parsing of the values
        // lullctl's flags take (times, durations, percentages), where tests can reach it.
        .target(
            name: "LullClient",
            dependencies: [
                "LullAPI", "LullCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "lulld",
            dependencies: [
                "LullDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: lean
        ),
        .executableTarget(
            name: "lullctl",
            dependencies: [
                "LullClient", "LullAPI", "LullCore", "CLullSys",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: leanClient
        ),
        // The floor under `lullctl submit fetch`, timed beside it by lull-bench (see its main.swift).
        .target(name: "SubmitFloor"),
        .executableTarget(name: "lull-submit-floor", dependencies: ["SubmitFloor"], linkerSettings: leanClient),
        // The same floor with its arguments parsed by swift-argument-parser (see its source).
        .executableTarget(
            name: "lull-parsed-floor",
            dependencies: ["SubmitFloor", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: leanClient
        ),
        .executableTarget(
            name: "lull-bench",
            dependencies: [
                "LullTestSupport", "LullClient", "LullAPI", "LullCore", "LullStore", "LullTransfer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Real servers and process helpers for tests: a loopback HTTP file server, daemon launcher.
        // LullClient lends its raw Unix-socket stream and HTTP framing (package access).
        .target(
            name: "LullTestSupport",
            dependencies: [
                "LullClient",
                "LullCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LullCoreTests",
            dependencies: ["LullCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "LullAPITests", dependencies: ["LullAPI", "LullClient", "LullCore", "LullTestSupport"]),
        .testTarget(
            name: "LullSensorsTests",
            dependencies: ["LullSensors", "LullCore", "LullKernelFiles", "LullTestSupport"]
        ),
        .testTarget(name: "LullStoreTests", dependencies: ["LullStore", "LullCore", "LullTestSupport"]),
        .testTarget(
            name: "LullDaemonTests",
            dependencies: [
                "LullDaemon", "LullClient", "LullAPI", "LullTestSupport", "LullCore", "LullStore", "LullTransfer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // lulld under a real systemd: the units in a Debian root booted with systemd-nspawn.
        .testTarget(name: "LullSystemdTests", dependencies: ["LullTestSupport"]),
    ]
)

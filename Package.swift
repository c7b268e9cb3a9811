// swift-tools-version:6.0
import PackageDescription

// Layers, bottom up. Each folder under Sources/ is one layer; a layer imports only
// the layers listed as its dependencies here.
//
//   CLibPQ      module map over the system libpq (Debian: libpq-dev)
//   Postgres    the one safe Swift wrapper over libpq
//   PlanRules   the pure rules of shared/spec/plan-rules.md: no I/O, no database
//   ZoneFiles   reads the system's tz database, once, for the rules
//   PlanJSON    the JSON of snapshots, diffs and notification lines; a strict parser
//   PlanStore   SQL: migrations, reading user_settings, writing plans and the outbox
//   NightlyRun  the run pipeline: due users -> rules -> store -> notifications
//   Operations  what ops and analysts see: log lines, metrics file, stop signal,
//               history timeline and CSV, the explain outlook
//   plan-regen  the command-line interface
let package = Package(
    name: "plan-regen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "plan-regen", targets: ["plan-regen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "Postgres", dependencies: ["CLibPQ"]),
        .target(name: "PlanRules"),
        .target(name: "ZoneFiles", dependencies: ["PlanRules"]),
        .target(name: "PlanJSON", dependencies: ["PlanRules"]),
        .target(name: "PlanStore", dependencies: ["Postgres", "PlanJSON", "PlanRules"]),
        .target(
            name: "NightlyRun",
            dependencies: [
                "PlanStore", "PlanJSON", "PlanRules", "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Operations",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanJSON", "PlanRules",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "plan-regen",
            dependencies: [
                "NightlyRun", "Operations", "PlanStore", "PlanRules", "Postgres", "ZoneFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The scale benchmark (issue 5): `Benchmarks/run.sh` builds and runs it.
        .executableTarget(
            name: "plan-regen-bench",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanJSON", "PlanRules", "Postgres", "ZoneFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/PlanRegenBench"
        ),
        .target(name: "TestSupport", dependencies: ["Postgres"], path: "Tests/TestSupport"),
        .testTarget(name: "PlanRulesTests", dependencies: ["PlanRules", "PlanJSON", "ZoneFiles"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(name: "PlanStoreTests", dependencies: ["PlanStore", "PlanJSON", "PlanRules", "Postgres", "TestSupport"]),
        .testTarget(
            name: "NightlyRunTests",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanRules", "Postgres", "TestSupport", "ZoneFiles",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "OpsTests", dependencies: ["Operations", "NightlyRun", "PlanStore", "PlanJSON", "PlanRules", "Postgres",
                                                "TestSupport", "ZoneFiles"]),
        // Real processes killed, databases cut, garbage rows, overlapping runs (issue 6).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanRules", "Postgres", "TestSupport", "ZoneFiles",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

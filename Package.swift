// swift-tools-version:6.0
import Foundation
import PackageDescription

// Layers, bottom up. Each folder under Sources/ is one layer; a layer imports only
// the layers listed as its dependencies here.
//
//   CLibPQ      module map over the system libpq (Debian: libpq-dev)
//   CGlibcMalloc module map over glibc's <malloc.h>, for plan-regen run's mallopt (Linux)
//   Postgres    the one safe Swift wrapper over libpq
//   PlanRules   the pure rules of docs/plan-rules.md: no I/O, no database
//   ZoneFiles   reads the system's tz database, once, for the rules
//   PlanJSON    the JSON of snapshots, diffs and notification lines; a strict parser
//   PlanStore   SQL: migrations, reading user_settings, writing plans and the outbox
//   DemoData    made-up user_settings rows for seed-demo, the tests and the benchmark
//   CCurl       module map over the system libcurl (Debian: libcurl4-openssl-dev)
//   Webhooks    Standard Webhooks requests: signing (swift-crypto), one POST over libcurl
//   LineOutput  lines written whole to stdout or a file (notifications, reports, exports)
//   NightlyRun  the run pipeline: due users -> rules -> store -> notifications
//   Operations  what ops and analysts see: log lines, metrics file, stop signal,
//               history timeline and CSV, the explain outlook
//   CBuildStamp the commit the binary was built from (below)
//   plan-regen  the command-line interface
/// The kill tests' fault points (NightlyRun/FaultInjection.swift) exist in debug builds
/// only, which is what `deploy/test.sh` builds: a release binary cannot be made to kill itself.
let faultInjectionInDebugBuilds: [SwiftSetting] = [.define("PLAN_REGEN_FAULT_INJECTION", .when(configuration: .debug))]

/// Release builds of the libraries on the per-user path optimize across module boundaries:
/// the JSON, store and pipeline call each other for every user, and a call into another
/// module that cannot be inlined or specialized retains and releases every value it passes.
let crossModuleOptimization: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

/// The commit a build is stamped with, from PLAN_REGEN_COMMIT (deploy/build-release.sh sets
/// it from git, the Dockerfile from its build argument): SwiftPM has no build hook, and a
/// C define changes one small file, not every module. Only the characters of a commit id
/// and a "-dirty" suffix pass; without it the binary says "unknown commit".
let buildCommit = (ProcessInfo.processInfo.environment["PLAN_REGEN_COMMIT"] ?? "")
    .filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
let buildStamp: [CSetting] = buildCommit.isEmpty ? [] : [.define("PLAN_REGEN_COMMIT", to: "\"\(buildCommit)\"")]

let package = Package(
    name: "plan-regen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "plan-regen", targets: ["plan-regen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(name: "CGlibcMalloc"),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Webhooks", dependencies: ["CCurl", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "CBuildStamp", cSettings: buildStamp),
        .target(name: "Postgres", dependencies: ["CLibPQ"], swiftSettings: crossModuleOptimization),
        .target(name: "PlanRules", swiftSettings: faultInjectionInDebugBuilds),
        .target(name: "ZoneFiles", dependencies: ["PlanRules"]),
        .target(name: "PlanJSON", dependencies: ["PlanRules"], swiftSettings: crossModuleOptimization),
        .target(name: "PlanStore", dependencies: ["Postgres", "PlanJSON", "PlanRules"], swiftSettings: crossModuleOptimization),
        .target(name: "DemoData", dependencies: ["PlanStore", "PlanRules", "Postgres"]),
        .target(name: "LineOutput"),
        .target(
            name: "NightlyRun",
            dependencies: [
                "PlanStore", "PlanJSON", "PlanRules", "Webhooks", "LineOutput",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: faultInjectionInDebugBuilds + crossModuleOptimization
        ),
        .target(
            name: "Operations",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanJSON", "PlanRules", "Webhooks", "LineOutput",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "plan-regen",
            dependencies: [
                "NightlyRun", "Operations", "PlanStore", "PlanRules", "Postgres", "DemoData", "ZoneFiles", "CBuildStamp",
                "Webhooks", "LineOutput",
                .target(name: "CGlibcMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: faultInjectionInDebugBuilds
        ),
        // The scale benchmark (docs/performance.md): `Benchmarks/run.sh` builds and runs it.
        .executableTarget(
            name: "plan-regen-bench",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanRules", "Postgres", "DemoData", "PlanJSON", "ZoneFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/PlanRegenBench"
        ),
        // A TCP proxy adding latency in each direction: the benchmark's remote database.
        .executableTarget(name: "delay-proxy", path: "Benchmarks/DelayProxy"),
        .target(name: "TestSupport", dependencies: ["Postgres"], path: "Tests/TestSupport"),
        .testTarget(name: "PlanRulesTests", dependencies: ["PlanRules", "PlanJSON", "ZoneFiles"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
        .testTarget(name: "WebhooksTests", dependencies: ["Webhooks"]),
        .testTarget(name: "PlanStoreTests", dependencies: ["PlanStore", "PlanJSON", "PlanRules", "Postgres", "TestSupport"]),
        .testTarget(
            name: "NightlyRunTests",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanRules", "Postgres", "TestSupport", "DemoData", "ZoneFiles", "LineOutput",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "OpsTests", dependencies: ["Operations", "NightlyRun", "PlanStore", "PlanJSON", "PlanRules", "Postgres",
                                                "TestSupport", "ZoneFiles", "DemoData", "LineOutput"]),
        // Real processes killed, databases cut, garbage rows, overlapping runs, TLS, deploy files.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "NightlyRun", "PlanStore", "PlanRules", "Postgres", "TestSupport", "DemoData", "ZoneFiles", "Webhooks", "LineOutput",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

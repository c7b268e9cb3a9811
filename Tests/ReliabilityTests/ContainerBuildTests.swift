import DemoData
import Foundation
import PlanRules
import Testing

/// deploy/Dockerfile, replayed without a container engine by deploy/check-dockerfile.sh:
/// its build stage's COPY lines make a clean directory where its `swift build` runs (a
/// release build by deploy/build-release.sh, stamped with the commit given as a build
/// argument: the slowest test, so one build only, started by deploy/test.sh beside the
/// debug build when it runs the whole suite), then its runtime packages are checked
/// against what that binary links, its `--version` shows the commit, and its runs are
/// compared with the tested build's.
@Suite struct ContainerBuildTests {
    @Test func theBuildStageBuildsInACleanDirectoryAndTheRuntimeStageHasWhatTheBinaryLinks() throws {
        let script = repositoryPath("deploy/check-dockerfile.sh")
        // As `docker build --build-arg PLAN_REGEN_COMMIT=$(git rev-parse HEAD)` (the context has no .git).
        let commit = try Subprocess.run(["git", "-C", repositoryPath("."), "rev-parse", "HEAD"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(commit.count == 40, "git rev-parse HEAD: \(commit)")
        let check = try Self.replay(script: script, commit: commit)
        let lines = check.stdout.split(separator: "\n").map(String.init)
        let binary = lines.first { $0.hasPrefix("check-dockerfile: binary: ") }
            .map { String($0.dropFirst("check-dockerfile: binary: ".count)) }
        // --keep: the clean directory stays for the checks below; removed here.
        defer {
            if let binary, let work = binary.range(of: "/root/") {
                try? FileManager.default.removeItem(atPath: String(binary[..<work.lowerBound]))
            }
        }
        #expect(check.status == 0, "\(check.stderr)\n\(check.stdout)")
        // Every path Package.swift declares is copied (the benchmark was once missing).
        for path in ["Package.swift", "Sources", "Tests", "Benchmarks", "sql", "deploy/build-release.sh"] {
            #expect(lines.contains("check-dockerfile: COPY \(path)"), "\(check.stdout)")
        }
        #expect(lines.contains("check-dockerfile: build: no compiler warning from the project's files"))
        #expect(lines.contains("check-dockerfile: links libpq.so.5 (libpq5, installed by the runtime stage)"),
                "\(check.stdout)")
        #expect(lines.contains { $0.hasPrefix("check-dockerfile: installs tzdata: ") })
        #expect(lines.last == "check-dockerfile: OK: the build stage builds in a clean directory and the runtime "
                + "stage installs only what the binary needs")

        let binaryPath = try #require(binary)
        let version = try JobProcess.run(["--version"], binary: URL(fileURLWithPath: binaryPath))
        #expect(version.stdout.hasPrefix("plan-regen 1.0.0 (commit \(commit), rules "), "\(version.stdout)")
        try expectSameWrites(deployed: URL(fileURLWithPath: binaryPath))

        // The same binary against runtime stages that miss a library or add a package.
        let dockerfile = try String(contentsOfFile: repositoryPath("deploy/Dockerfile"), encoding: .utf8)
        try withScratchDirectory { folder in
            for (change, failure) in [
                ("libpq5 curl tzdata", "the runtime stage installs curl, which the binary does not need"),
                ("tzdata", "the binary links libpq.so.5 from libpq5, which the runtime stage does not install"),
            ] {
                let edited = dockerfile.replacingOccurrences(of: "libpq5 tzdata", with: change)
                #expect(edited != dockerfile)
                try edited.write(toFile: folder + "/Dockerfile", atomically: true, encoding: .utf8)
                let runtime = try Subprocess.run([script, "--dockerfile", folder + "/Dockerfile",
                                                  "--binary", binaryPath])
                #expect(runtime.status == 1, "\(runtime.stdout)")
                #expect(runtime.stderr.contains("check-dockerfile: FAILED: \(failure)"), "\(runtime.stderr)")
            }
        }
    }

    /// check-dockerfile.sh's result: the run deploy/test.sh started beside the build for the
    /// whole suite (`PLAN_REGEN_DOCKERFILE_REPLAY`, for the same commit), awaited; else a run
    /// of its own.
    private static func replay(script: String, commit: String) throws -> Subprocess.Result {
        let environment = ProcessInfo.processInfo.environment
        guard let folder = environment["PLAN_REGEN_DOCKERFILE_REPLAY"],
              environment["PLAN_REGEN_DOCKERFILE_REPLAY_COMMIT"] == commit else {
            return try Subprocess.run([script, "--keep", "--build-arg", "PLAN_REGEN_COMMIT=\(commit)"],
                                      limitSeconds: 1800)
        }
        let deadline = Date().addingTimeInterval(1800)
        while !FileManager.default.fileExists(atPath: folder + "/status") {
            guard Date() < deadline else { throw SubprocessError.timedOut([script], 1800) }
            usleep(200_000)
        }
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
        }
        let status = Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return Subprocess.Result(status: status, stdout: read("stdout"), stderr: read("stderr"))
    }

    /// The deployed binary is built another way than the one the tests run (release, with
    /// link-time optimization; `deploy/test.sh` builds for debugging): on two databases of the
    /// same 2,000 demo users, a first run and then, every plan made to look as if an older
    /// rules version wrote it, the next day's run, which reads every stored plan back and
    /// writes each user's new one with `previous` and a diff, must write the same rows and
    /// notification lines with either binary.
    private func expectSameWrites(deployed: URL) throws {
        func writes(of binary: URL?) throws -> [[String]] {
            try JobDatabase.withFresh { db in
                try db.seed(users: 2_000, writtenBefore: Instant(rfc3339: "2026-02-28T00:00:00Z")!)
                return try withScratchDirectory { folder in
                    func run(asOf: String, _ extra: [String] = []) throws {
                        let result = try db.run(["--as-of", asOf, "--notifications", folder + "/n.jsonl"] + extra,
                                                binary: binary)
                        #expect(result.status == 0, "\(binary?.path ?? "the tested build"): \(result)")
                    }
                    try run(asOf: "2026-03-01T12:00:00Z")
                    try DemoUsers.makeCurrentPlansLookOlder(in: db.owner())
                    try run(asOf: "2026-03-02T12:00:00Z", ["--rules-at-once"])
                    let tables = PlanTables(connection: try db.owner())
                    // Workers append whole batches in the order they finish: compare the lines as a set.
                    let notifications = try String(contentsOfFile: folder + "/n.jsonl", encoding: .utf8)
                        .split(separator: "\n").map(String.init).sorted()
                    return [try tables.historyFingerprints(), try tables.stateFingerprints(),
                            try tables.rejectionFingerprints(),
                            try tables.outbox().map { "\($0.key) \($0.value)" }.sorted(), notifications]
                }
            }
        }
        let tested = try writes(of: nil)
        let fromDeployed = try writes(of: deployed)
        // Both days wrote a plan for most users, the second with a diff (so the comparison
        // compares something).
        #expect(tested[0].count > 3_000, "history rows: \(tested[0].count)")
        #expect(tested[4].count > 1_000, "notification lines: \(tested[4].count)")
        let names = ["plan_history", "plan_state", "plan_rejections", "outbox", "notification lines"]
        for (name, (mine, theirs)) in zip(names, zip(tested, fromDeployed)) {
            let firstDifference = zip(mine, theirs).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "the count"
            #expect(mine == theirs, """
                \(name): \(mine.count) rows from the tested build, \(theirs.count) from the deployed one; \
                first difference: \(firstDifference)
                """)
        }
    }

    /// The manifest declares Benchmarks/: a build stage that does not copy it fails at once,
    /// naming the path (what the first Dockerfile did).
    @Test func aBuildStageMissingADeclaredPathFails() throws {
        try withScratchDirectory { folder in
            let dockerfile = try String(contentsOfFile: repositoryPath("deploy/Dockerfile"), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("COPY Benchmarks") }.joined(separator: "\n")
            try dockerfile.write(toFile: folder + "/Dockerfile", atomically: true, encoding: .utf8)
            let check = try Subprocess.run([repositoryPath("deploy/check-dockerfile.sh"), "--dockerfile",
                                            folder + "/Dockerfile"], limitSeconds: 600)
            #expect(check.status == 1)
            #expect(check.stderr.contains("'Benchmarks/PlanRegenBench'"), "\(check.stderr)")
            #expect(check.stderr.contains("check-dockerfile: FAILED: RUN deploy/build-release.sh"))
        }
    }
}

/// A path in the repository, from this file's place in it.
func repositoryPath(_ relative: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../\(relative)").standardized.path
}

/// A folder removed after `body`.
func withScratchDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("deploy-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

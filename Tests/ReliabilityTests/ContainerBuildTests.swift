import Foundation
import Testing

/// deploy/Dockerfile, replayed without a container engine by deploy/check-dockerfile.sh:
/// its build stage's COPY lines make a clean directory where its `swift build` runs (a
/// release build: the slowest test, so one build only), then its runtime packages are
/// checked against what that binary links.
@Suite struct ContainerBuildTests {
    @Test func theBuildStageBuildsInACleanDirectoryAndTheRuntimeStageHasWhatTheBinaryLinks() throws {
        let script = repositoryPath("deploy/check-dockerfile.sh")
        let check = try Subprocess.run([script, "--keep"], limitSeconds: 1800)
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
        for path in ["Package.swift", "Sources", "Tests", "Benchmarks", "sql"] {
            #expect(lines.contains("check-dockerfile: COPY \(path)"), "\(check.stdout)")
        }
        #expect(lines.contains("check-dockerfile: build: no compiler warning from the project's files"))
        #expect(lines.contains("check-dockerfile: links libpq.so.5 (libpq5, installed by the runtime stage)"),
                "\(check.stdout)")
        #expect(lines.contains { $0.hasPrefix("check-dockerfile: installs tzdata: ") })
        #expect(lines.last == "check-dockerfile: OK: the build stage builds in a clean directory and the runtime "
                + "stage installs only what the binary needs")

        // The same binary against runtime stages that miss a library or add a package.
        let binaryPath = try #require(binary)
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
            #expect(check.stderr.contains("check-dockerfile: FAILED: RUN swift build"))
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

import Foundation
import PlanStore
import Testing

/// The release's version has one home (Sources/plan-regen/Version.swift, printed by
/// `--version`); the files that must repeat it agree with the binary, CHANGELOG.md lists
/// every migration with its kind, and the build script stamps the commit it is run in.
@Suite struct ReleaseFilesTests {
    /// "1.0.0", from the tested binary.
    private func version() throws -> String {
        let line = try JobProcess.run(["--version"]).stdout
        return try #require(line.split(separator: " ").dropFirst().first.map(String.init), "\(line)")
    }

    private func file(_ path: String) throws -> String {
        try String(contentsOfFile: repositoryPath(path), encoding: .utf8)
    }

    @Test func theImageTheManifestsAndTheChangelogCarryTheBinarysVersion() throws {
        let version = try version()
        let dockerfile = try file("deploy/Dockerfile")
        #expect(dockerfile.contains("org.opencontainers.image.version=\"\(version)\""))
        #expect(dockerfile.contains("-t plan-regen:\(version) ."))
        for manifest in ["deploy/kubernetes/cronjob.yaml", "deploy/kubernetes/cronjob-prune.yaml",
                         "deploy/kubernetes/sharded/cronjob-sharded.yaml", "deploy/kubernetes/migrate/job.yaml"] {
            let images = try file(manifest).split(separator: "\n").filter { $0.contains("image:") }
            #expect(!images.isEmpty, "\(manifest)")
            for image in images {
                #expect(image.hasSuffix("/plan-regen:\(version)"), "\(manifest): \(image)")
            }
        }
        let job = try file("deploy/kubernetes/migrate/job.yaml")
        #expect(job.contains("name: plan-regen-migrate-\(version.replacingOccurrences(of: ".", with: "-"))\n"))
        #expect(job.contains("app.kubernetes.io/version: \"\(version)\""))
        let releases = try file("CHANGELOG.md").split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.contains("Unreleased") }
        #expect(releases.first?.hasPrefix("## [\(version)] - ") == true, "\(releases)")
    }

    /// The migrate Job runs `migrate` (expand migrations only) as the tables' owner, from a
    /// Secret the run's CronJobs do not use.
    @Test func theMigrateJobUsesTheOwnersSecret() throws {
        let job = try file("deploy/kubernetes/migrate/job.yaml")
        #expect(job.contains("kind: Job\n"))
        #expect(job.contains("args: [\"migrate\", \"--log-format\", \"json\"]"))
        #expect(job.contains("name: plan-regen-migrate-db\n"))
        #expect(!(try file("deploy/kubernetes/cronjob.yaml")).contains("plan-regen-migrate-db"))
    }

    @Test func theChangelogListsEveryMigrationWithItsKind() throws {
        let changelog = try file("CHANGELOG.md")
        for migration in Migration.planRegen {
            let kind = try #require(migration.kind?.rawValue, "\(migration.name) is unmarked")
            #expect(changelog.contains("| `\(migration.name)` | \(kind)"), "CHANGELOG.md: \(migration.name) (\(kind))")
        }
    }

    @Test func thePreviousReleaseIsRecorded() throws {
        let lines = try file("deploy/previous-release").split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("version ") == true)
        let commit = try #require(lines.last.map { String($0.dropFirst("commit ".count)) })
        #expect(lines.last?.hasPrefix("commit ") == true)
        #expect(commit == "none" || (commit.count == 40 && commit.allSatisfy(\.isHexDigit)), "\(commit)")
    }

    /// deploy/build-release.sh stamps what `git rev-parse HEAD` says in the repository, the
    /// value of PLAN_REGEN_COMMIT when set (the Dockerfile's build argument), and nothing
    /// where there is neither (a copy without .git).
    @Test func theBuildScriptStampsTheCommit() throws {
        let script = repositoryPath("deploy/build-release.sh")
        let head = try Subprocess.run(["git", "-C", repositoryPath("."), "rev-parse", "HEAD"])
        let stamp = try Subprocess.run([script, "--print-commit"])
        #expect(stamp.status == 0, "\(stamp.stderr)")
        #expect(stamp.stdout.hasPrefix(head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(stamp.stdout)")
        try withScratchDirectory { folder in
            try FileManager.default.createDirectory(atPath: folder + "/deploy", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: script, toPath: folder + "/deploy/build-release.sh")
            let unknown = try Subprocess.run([folder + "/deploy/build-release.sh", "--print-commit"])
            #expect(unknown.stdout == "unknown commit\n", "\(unknown.stdout)\(unknown.stderr)")
            let given = try Subprocess.run(["env", "PLAN_REGEN_COMMIT=0123abc", folder + "/deploy/build-release.sh",
                                            "--print-commit"])
            #expect(given.stdout == "0123abc\n", "\(given.stdout)\(given.stderr)")
        }
    }
}

import CBuildStamp
import PlanRules
import PlanStore

/// The release of this binary, its one home; `plan_runs.binary_version` records it. The
/// container image's tag and label, the manifests and CHANGELOG.md's newest entry repeat it
/// (ReleaseFilesTests fails while they disagree).
let binaryVersion = "1.0.0"

/// "commit <id>" of the commit the binary was built from, or "unknown commit" for a build
/// that was not told (Sources/CBuildStamp).
let buildCommit: String = {
    let commit = String(cString: plan_regen_build_commit)
    return commit.isEmpty ? "unknown commit" : "commit \(commit)"
}()

/// What `plan-regen --version` prints: the release, the commit, the rules version and the
/// schema level (the newest migration the binary knows).
let versionLine = "plan-regen \(binaryVersion) (\(buildCommit), rules \(rulesVersion), "
    + "schema \(Migration.planRegen.last?.name ?? "none"))"

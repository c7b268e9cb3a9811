import Foundation
import PlanJSON
import PlanRules
import PlanStore
import Postgres

/// Decoding stored plans alone, in process: every user a run regenerates from an existing
/// plan (the rules-change run: everyone) has `plan_history.snapshot::text` decoded once.
/// The texts are jsonb's output as PostgreSQL returns it (keys reordered, spaces after `:`
/// and `,`), read once from the database after a first run, then decoded over and over;
/// thread CPU time, best of five (after checking that both ways give the same snapshots):
/// - `Snapshot(json:)` from the column's String, as `UserLoading` calls it;
/// - the general tree (`JSONValue(parsing:)` then `Snapshot(jsonValue:)`), for comparison.
struct DecodeOnly {
    var snapshots: Int
    var bytesPerSnapshot: Double
    var decodeNanosPerSnapshot: Double
    var treeNanosPerSnapshot: Double

    static func measure(database: BenchDatabase, job: JobBinary, at instant: Instant) throws -> DecodeOnly {
        try database.resetJobTables()
        _ = try job.run([["run", "--as-of", instant.rfc3339, "--allow-future", "--log-level", "warning",
                          "--database-url", database.conninfo]])
        let texts = try database.connection.query("SELECT snapshot::text AS snapshot FROM plan_history ORDER BY id",
                                                  purpose: "reading the stored plans")
            .map { try $0.string("snapshot") }
        guard !texts.isEmpty else { throw BenchError("the first run stored no plans") }
        for text in texts where try Snapshot(json: text) != Snapshot(jsonValue: JSONValue(parsing: text)) {
            throw BenchError("Snapshot(json:) and the tree decoder disagree on \(text)")
        }
        var best = (decode: Double.infinity, tree: Double.infinity)
        var sink = 0
        for _ in 0..<5 {
            let decodeSeconds = try threadCPUSeconds {
                for text in texts {
                    // As UserLoading.currentPlan(json:userID:) calls it.
                    sink &+= try Snapshot(json: text).targets.calories
                }
            }
            let treeSeconds = try threadCPUSeconds {
                for text in texts {
                    sink &+= try Snapshot(jsonValue: JSONValue(parsing: text)).targets.calories
                }
            }
            best = (min(best.decode, decodeSeconds), min(best.tree, treeSeconds))
        }
        precondition(sink != 42, "keeps the work from being optimized away")
        return DecodeOnly(snapshots: texts.count,
                          bytesPerSnapshot: Double(texts.reduce(0) { $0 + $1.utf8.count }) / Double(texts.count),
                          decodeNanosPerSnapshot: best.decode * 1e9 / Double(texts.count),
                          treeNanosPerSnapshot: best.tree * 1e9 / Double(texts.count))
    }
}

/// The CPU time this thread spends in `body`: the machine is shared, wall time is not ours.
func threadCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

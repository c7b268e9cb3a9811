import Dispatch
import PlanRules
import PlanStore
import Postgres

/// The pure rules alone, in process (issue 3: a full plan for one user, local date
/// included, well under 10 µs): every user's row and stored state are read once, then
/// `evaluate` runs over all of them, and separately with the JSON the run writes
/// (snapshot, diff, notification line) encoded as well.
struct RulesOnly {
    var users: Int
    var evaluateNanosPerUser: Double
    var evaluateAndEncodeNanosPerUser: Double

    static func measure(database: BenchDatabase, users: Int, at instant: Instant, zones: ZoneDatabase) throws -> RulesOnly {
        let store = try PlanStore(connection: PostgresConnection(conninfo: database.conninfo))
        var loaded: [LoadedUser] = []
        loaded.reserveCapacity(users)
        var next: Int64 = 1
        while next <= Int64(users) {
            let last = min(next + 1999, Int64(users))
            loaded += try store.loadUsers(Array(next...last))
            next = last + 1
        }
        var best = (evaluate: Double.infinity, encode: Double.infinity)
        var sink = 0
        for _ in 0..<3 {
            let evaluateSeconds = timed {
                for user in loaded {
                    let e = evaluate(row: user.row, state: user.state, at: instant, manualRerun: false, zones: zones)
                    sink &+= e.reasons.count
                }
            }
            let encodeSeconds = timed {
                for user in loaded {
                    let e = evaluate(row: user.row, state: user.state, at: instant, manualRerun: false, zones: zones)
                    if let history = e.history {
                        sink &+= history.snapshot.jsonString.utf8.count &+ history.diff.jsonString.utf8.count
                    }
                    if let notification = e.notification { sink &+= notification.jsonString.utf8.count }
                }
            }
            best = (min(best.evaluate, evaluateSeconds), min(best.encode, encodeSeconds))
        }
        precondition(sink != 42, "keeps the work from being optimized away")
        return RulesOnly(users: loaded.count, evaluateNanosPerUser: best.evaluate * 1e9 / Double(loaded.count),
                         evaluateAndEncodeNanosPerUser: best.encode * 1e9 / Double(loaded.count))
    }
}

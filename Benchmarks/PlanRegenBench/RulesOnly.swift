import Dispatch
import PlanJSON
import PlanRules
import PlanStore
import Postgres

/// The pure rules alone, in process (issue 3: a full plan for one user, local date
/// included, well under 10 µs). Every user's row and stored state are read once, then
/// timed over all users, best of three:
/// - a full plan: the zone, the local date, the row read and validated, `computePlan`;
/// - `evaluate`: all of the above plus due reasons, diff, notification and next check;
/// - `evaluate` and the JSON the run writes (snapshot, diff, notification line).
struct RulesOnly {
    var users: Int
    var plans: Int
    var fullPlanNanosPerUser: Double
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
        var best = (plan: Double.infinity, evaluate: Double.infinity, encode: Double.infinity)
        var sink = 0
        var plans = 0
        for _ in 0..<3 {
            plans = 0
            let planSeconds = timed {
                for user in loaded {
                    guard let row = user.row, let zone = zones.zone(named: row.timezone ?? "UTC") else { continue }
                    let date = zone.localDate(at: instant)
                    guard case .valid(let settings) = judge(row, planDate: date, zones: zones) else { continue }
                    let plan = computePlan(from: settings, planDate: date, reasons: [.created], currentPlan: nil)
                    sink &+= plan.targets.calories
                    plans += 1
                }
            }
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
                        // As the job encodes them (BatchProcessing.swift).
                        sink &+= history.snapshot.storageJSONBytes().count &+ history.diff.jsonBytes().count
                    }
                    if let notification = e.notification { sink &+= notification.jsonBytes().count }
                }
            }
            best = (min(best.plan, planSeconds), min(best.evaluate, evaluateSeconds), min(best.encode, encodeSeconds))
        }
        precondition(sink != 42, "keeps the work from being optimized away")
        return RulesOnly(users: loaded.count, plans: plans, fullPlanNanosPerUser: best.plan * 1e9 / Double(plans),
                         evaluateNanosPerUser: best.evaluate * 1e9 / Double(loaded.count),
                         evaluateAndEncodeNanosPerUser: best.encode * 1e9 / Double(loaded.count))
    }
}

import Foundation
import PlanRules
import PlanStore

/// `plan-regen preview`: what this binary's rules version would do to every user whose
/// latest evaluation an older version made, at the midnight its rollout would reach them
/// were it to start at the preview's instant (plan-rules.md section 2.1) — for the
/// sign-off of a rules change before it ships. Each user goes through the run's own
/// `evaluate` (`evaluateAtRolloutMidnight`), never a second implementation. Streamed a
/// batch at a time: what is kept is counts, delta histograms and the 20 largest changes.
/// Only reads: it works on a hot standby and through a pooler.
public struct RulesPreview: JSONReport, Sendable {
    public var binaryVersion: String
    public var rulesVersion: String
    /// The preview's instant (`--as-of`, else now): the assumed rollout start, RFC 3339.
    public var at: String
    /// Users whose latest evaluation an older rules version made, and of those the users
    /// whose plan the new rules change and the users whose plan they leave as it is.
    public var usersCompared = 0
    public var usersChanging = 0
    public var usersUnchanged = 0
    /// Users whose plan a newer rules version made: counted apart, not compared.
    public var usersOnNewerRules = 0
    /// Per field: how many plans change and the distribution of the deltas.
    public var fields: [FieldChanges] = []
    /// Notifications that would go out: type → copy locale ("none" without one) → count.
    public var notifications: [String: [String: Int]] = [:]
    /// Users whose live row the new rules would reject, per failing field.
    public var rejections: [String: Int] = [:]
    /// The 20 largest calorie changes, largest first.
    public var largestCalorieChanges: [CalorieChange] = []
    /// The calorie changes (after − before) in the report's buckets
    /// (`PlanReportFigures.calorieBucket`): each non-empty bucket's start and its plans, in order.
    public var calorieDeltas: [DeltaBucket] = []

    public struct FieldChanges: Encodable, Sendable, Equatable {
        public var field: String
        public var changed: Int
        /// Of the changed plans' deltas (after − before); nil for fields without a number.
        public var min: Int?
        public var p5: Int?
        public var median: Int?
        public var p95: Int?
        public var max: Int?
    }

    public struct DeltaBucket: Encodable, Sendable, Equatable {
        public var from: Int
        public var plans: Int
    }

    public static let calorieBucketWidth = PlanReportFigures.calorieBucketWidth

    public struct CalorieChange: Encodable, Sendable, Equatable {
        public var userID: Int64
        public var before: Int
        public var after: Int
    }

    static let numericFields: [(name: String, value: @Sendable (Snapshot.Targets) -> Int)] = [
        ("calories", \.calories), ("protein_g", \.proteinG), ("fat_g", \.fatG), ("carbs_g", \.carbsG),
        ("water_ml", \.waterMl),
    ]

    /// Compares every user under older rules. `eachUser` sees each compared user's
    /// evaluation and the instant of the run that would write it (the tests compare it with
    /// what the runs write).
    public static func gather(from store: PlanStore, at now: Instant, zones: ZoneDatabase, binaryVersion: String,
                              batchSize: Int = 2000,
                              eachUser: (_ userID: Int64, _ writtenAt: Instant, _ evaluation: Evaluation) -> Void = { _, _, _ in })
        throws -> RulesPreview {
        var preview = RulesPreview(binaryVersion: binaryVersion, rulesVersion: PlanRules.rulesVersion,
                                   at: StatusReport.text(now))
        let versions = try store.rulesVersionsInUse()
        preview.usersOnNewerRules = try store.usersPerRulesVersion().latestEvaluation
            .filter { $0.key != "none" && RulesVersionStanding(of: $0.key) == .newer }.values.reduce(0, +)
        var deltas = [[Int: Int]](repeating: [:], count: numericFields.count)
        var phaseChanges = 0, flagChanges = 0
        try store.forEachUser(evaluatedUnder: versions.filter { RulesVersionStanding(of: $0) == .older },
                              batchSize: batchSize) { users in
            for user in users {
                guard let (writtenAt, evaluation) = evaluateAtRolloutMidnight(
                    row: user.row, state: user.state, rolloutStart: now, zones: zones) else { continue }
                eachUser(user.userID, writtenAt, evaluation)
                preview.usersCompared += 1
                for rejection in evaluation.rejections { preview.rejections[rejection.field.rawValue, default: 0] += 1 }
                guard let history = evaluation.history, let before = history.previous else {
                    preview.usersUnchanged += 1
                    continue
                }
                preview.usersChanging += 1
                let after = history.snapshot
                for (index, field) in numericFields.enumerated() {
                    let delta = field.value(after.targets) - field.value(before.targets)
                    if delta != 0 { deltas[index][delta, default: 0] += 1 }
                }
                if after.phase.phase != before.phase.phase { phaseChanges += 1 }
                if after.flags != before.flags { flagChanges += 1 }
                if let notification = evaluation.notification {
                    preview.notifications[notification.type.rawValue, default: [:]][notification.locale ?? "none", default: 0] += 1
                }
                preview.noteCalorieChange(CalorieChange(userID: user.userID, before: before.targets.calories,
                                                        after: after.targets.calories))
            }
        }
        preview.fields = zip(numericFields, deltas).map { field, histogram in Self.changes(field.name, histogram) }
            + [FieldChanges(field: "phase", changed: phaseChanges), FieldChanges(field: "flags", changed: flagChanges)]
        var plansPerBucket: [Int: Int] = [:]
        for (delta, plans) in deltas[0] {  // numericFields starts with calories
            plansPerBucket[PlanReportFigures.calorieBucket(of: delta), default: 0] += plans
        }
        preview.calorieDeltas = plansPerBucket.sorted { $0.key < $1.key }.map { DeltaBucket(from: $0.key, plans: $0.value) }
        return preview
    }

    /// Keeps the 20 largest calorie changes (by size, then user id).
    private mutating func noteCalorieChange(_ change: CalorieChange) {
        guard change.after != change.before else { return }
        func size(_ c: CalorieChange) -> Int { abs(c.after - c.before) }
        if largestCalorieChanges.count == 20, let last = largestCalorieChanges.last, size(change) <= size(last) { return }
        let index = largestCalorieChanges.firstIndex {
            size($0) < size(change) || size($0) == size(change) && $0.userID > change.userID
        } ?? largestCalorieChanges.endIndex
        largestCalorieChanges.insert(change, at: index)
        if largestCalorieChanges.count > 20 { largestCalorieChanges.removeLast() }
    }

    /// A field's changes from its histogram of deltas: nearest-rank percentiles.
    static func changes(_ field: String, _ histogram: [Int: Int]) -> FieldChanges {
        let sorted = histogram.sorted { $0.key < $1.key }
        let total = sorted.reduce(0) { $0 + $1.value }
        func percentile(_ p: Double) -> Int? {
            guard total > 0 else { return nil }
            let rank = Swift.max(1, Int((p * Double(total)).rounded(.up)))
            var seen = 0
            for (delta, count) in sorted {
                seen += count
                if seen >= rank { return delta }
            }
            return sorted.last?.key
        }
        return FieldChanges(field: field, changed: total, min: sorted.first?.key, p5: percentile(0.05),
                            median: percentile(0.5), p95: percentile(0.95), max: sorted.last?.key)
    }

    /// The screen for people.
    public func text() -> String {
        var lines = [
            "plan-regen preview: rules \(rulesVersion) (binary \(binaryVersion)) if its rollout started at \(at)", "",
            "users under older rules: \(usersCompared); their plans change for \(usersChanging), stay for \(usersUnchanged)",
            "users on newer rules (not compared): \(usersOnNewerRules)", "",
            "field        changed      min       p5   median      p95      max",
        ]
        for field in fields {
            let numbers = [field.min, field.p5, field.median, field.p95, field.max]
                .map { ($0.map(String.init) ?? "-").leftPadded(8) }.joined(separator: " ")
            lines.append(field.field.padding(toLength: 10, withPad: " ", startingAt: 0) + String(field.changed).leftPadded(9)
                         + " " + numbers)
        }
        lines.append("")
        let sent = notifications.sorted { $0.key < $1.key }.map { type, locales in
            "\(type): " + locales.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        lines.append("notifications: " + (sent.isEmpty ? "none" : sent.joined(separator: "; ")))
        let rejected = rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append("rows the new rules reject: " + (rejected.isEmpty ? "none" : rejected.joined(separator: ", ")))
        lines.append("")
        lines.append("largest calorie changes (user: before → after)")
        for change in largestCalorieChanges {
            lines.append("  \(change.userID): \(change.before) → \(change.after) (\(change.after - change.before > 0 ? "+" : "")\(change.after - change.before))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: Swift.max(0, width - count)) + self }
}

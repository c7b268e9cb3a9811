import PlanRules

// The snapshot object of plan-rules.md section 6, written by hand: nulls written, heights
// and weights with one decimal, `weekly_rate_kg` with up to three, dates `YYYY-MM-DD`,
// `settings_updated_at` RFC 3339 UTC with six fractional digits, no spaces. Equal
// snapshots give equal bytes.

extension Snapshot {
    /// Section 6's key order: what people, the worked examples and `--dry-run` read.
    public func jsonBytes() -> [UInt8] { jsonBytes(keyOrder: .contract) }

    /// The same object with each object's keys in `keyOrder` (the store writes jsonb's).
    public func jsonBytes(keyOrder: SnapshotKeyOrder) -> [UInt8] {
        var bytes: [UInt8] = []
        appendJSON(keyOrder: keyOrder, to: &bytes)
        return bytes
    }

    /// The same bytes appended to `bytes`: a run keeps a batch's JSON in one buffer
    /// rather than an array per value.
    public func appendJSON(keyOrder: SnapshotKeyOrder, to bytes: inout [UInt8]) {
        var writer = JSONWriter(capacity: 800)
        writer.snapshot(self, order: keyOrder)
        writer.appendWritten(to: &bytes)
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

/// The order in which each object of a snapshot lists its keys: section 6's, or one the
/// reader of the bytes prefers (PlanStore sends `plan_history` jsonb's own order). The
/// keys are sorted, and their `"name":` bytes made, once, when the order is made.
public struct SnapshotKeyOrder: Sendable {
    let snapshot: ObjectKeys<SnapshotKey>
    let inputs: ObjectKeys<InputsKey>
    let targets: ObjectKeys<TargetsKey>
    let phase: ObjectKeys<PhaseKey>
    let projection: ObjectKeys<ProjectionKey>

    /// As plan-rules.md section 6 lists them (the declaration order of the key enums).
    public static let contract = SnapshotKeyOrder(sortedBy: nil)

    /// Every object's keys sorted by `precedes` (given the key names); nil keeps section 6's.
    public init(sortedBy precedes: ((String, String) -> Bool)?) {
        func keys<Key: JSONObjectKey>(_: Key.Type) -> ObjectKeys<Key> {
            ObjectKeys(precedes.map { precedes in Key.allCases.sorted { precedes($0.rawValue, $1.rawValue) } }
                       ?? Key.allCases)
        }
        snapshot = keys(SnapshotKey.self)
        inputs = keys(InputsKey.self)
        targets = keys(TargetsKey.self)
        phase = keys(PhaseKey.self)
        projection = keys(ProjectionKey.self)
    }
}

/// The keys of one kind of JSON object, declared in the contract's order; the raw value is
/// the key's name.
protocol JSONObjectKey: RawRepresentable<String>, CaseIterable, Sendable where AllCases == [Self] {}

/// An object's keys in the order they are written, with their `"name":` bytes one after
/// the other (key `i` ends at `ends[i]`): each key is then one copy, and a snapshot writes
/// about forty.
struct ObjectKeys<Key: JSONObjectKey>: Sendable {
    let keys: [Key]
    let names: [UInt8]
    let ends: [Int]

    init(_ keys: [Key]) {
        self.keys = keys
        let prefixes = keys.map { Array("\"\($0.rawValue)\":".utf8) }
        names = prefixes.flatMap { $0 }
        ends = prefixes.reduce(into: []) { ends, prefix in ends.append((ends.last ?? 0) + prefix.count) }
    }
}

extension JSONWriter {
    /// `{"key":value,…}` with the keys in the order given, each value written by `value`.
    mutating func object<Key: JSONObjectKey>(_ keys: ObjectKeys<Key>, _ value: (inout JSONWriter, Key) -> Void) {
        raw("{")
        keys.names.withUnsafeBufferPointer { names in
            var start = 0
            for (index, end) in keys.ends.enumerated() {
                if index > 0 { raw(",") }
                append(contentsOf: UnsafeBufferPointer(rebasing: names[start..<end]))
                value(&self, keys.keys[index])
                start = end
            }
        }
        raw("}")
    }

    mutating func snapshot(_ s: Snapshot, order: SnapshotKeyOrder) {
        object(order.snapshot) { writer, key in
            switch key {
            case .rulesVersion: writer.string(s.rulesVersion)
            case .planDate: writer.date(s.planDate)
            case .reasons: writer.strings(s.reasons.lazy.map(\.rawValue))
            case .inputs: writer.inputs(s.inputs, order: order)
            case .targets: writer.targets(s.targets, order: order)
            case .phase: writer.phase(s.phase, order: order)
            case .projection: writer.projection(s.projection, order: order)
            case .flags: writer.strings(s.flags.lazy.map(\.rawValue))
            }
        }
    }

    private mutating func inputs(_ i: Snapshot.Inputs, order: SnapshotKeyOrder) {
        object(order.inputs) { writer, key in
            switch key {
            case .dateOfBirth: writer.date(i.dateOfBirth)
            case .age: writer.int(i.age)
            case .gender: writer.string(i.gender.rawValue)
            case .heightCm: writer.fixedPoint(i.heightTenthsCm, decimals: 1)
            case .weightKgReported: writer.fixedPoint(i.weightReportedTenthsKg, decimals: 1)
            case .weightKgBasis: writer.fixedPoint(i.weightBasisTenthsKg, decimals: 1)
            case .primaryGoal: writer.string(i.primaryGoal.rawValue)
            case .activityLevel: writer.string(i.activityLevel.rawValue)
            case .targetWeightKg: writer.optional(i.targetWeightTenthsKg) { $0.fixedPoint($1, decimals: 1) }
            case .targetDate: writer.optional(i.targetDate) { $0.date($1) }
            case .dietaryPreferences: writer.strings(i.dietaryPreferences)
            case .allergies: writer.strings(i.allergies)
            case .mealsPerDay: writer.int(i.mealsPerDay)
            case .timezone: writer.string(i.timezone)
            case .settingsUpdatedAt: writer.optional(i.settingsUpdatedAt) { $0.instant($1) }
            }
        }
    }

    private mutating func targets(_ t: Snapshot.Targets, order: SnapshotKeyOrder) {
        object(order.targets) { writer, key in
            switch key {
            case .bmr: writer.int(t.bmr)
            case .tdee: writer.int(t.tdee)
            case .calories: writer.int(t.calories)
            case .proteinG: writer.int(t.proteinG)
            case .fatG: writer.int(t.fatG)
            case .carbsG: writer.int(t.carbsG)
            case .waterMl: writer.int(t.waterMl)
            }
        }
    }

    private mutating func phase(_ p: Snapshot.PhaseInfo, order: SnapshotKeyOrder) {
        object(order.phase) { writer, key in
            switch key {
            case .phase: writer.string(p.phase.rawValue)
            case .cycleStartDate: writer.optional(p.cycleStartDate) { $0.date($1) }
            case .phaseDay: writer.optional(p.phaseDay) { $0.int($1) }
            case .nextPhaseSwitchDate: writer.optional(p.nextPhaseSwitchDate) { $0.date($1) }
            }
        }
    }

    private mutating func projection(_ p: Snapshot.Projection, order: SnapshotKeyOrder) {
        object(order.projection) { writer, key in
            switch key {
            case .weeklyRateKg: writer.fixedPoint(p.weeklyRateThousandthsKg, decimals: 3)
            case .estimatedWeeks: writer.optional(p.estimatedWeeks) { $0.int($1) }
            case .projectedDate: writer.optional(p.projectedDate) { $0.date($1) }
            case .recommendedTargetDate: writer.optional(p.recommendedTargetDate) { $0.date($1) }
            }
        }
    }
}

// The keys of section 6, in its order.

enum SnapshotKey: String, JSONObjectKey {
    case rulesVersion = "rules_version", planDate = "plan_date", reasons, inputs, targets, phase, projection, flags
}

enum InputsKey: String, JSONObjectKey {
    case dateOfBirth = "date_of_birth", age, gender, heightCm = "height_cm", weightKgReported = "weight_kg_reported"
    case weightKgBasis = "weight_kg_basis", primaryGoal = "primary_goal", activityLevel = "activity_level"
    case targetWeightKg = "target_weight_kg", targetDate = "target_date", dietaryPreferences = "dietary_preferences"
    case allergies, mealsPerDay = "meals_per_day", timezone, settingsUpdatedAt = "settings_updated_at"
}

enum TargetsKey: String, JSONObjectKey {
    case bmr, tdee, calories, proteinG = "protein_g", fatG = "fat_g", carbsG = "carbs_g", waterMl = "water_ml"
}

enum PhaseKey: String, JSONObjectKey {
    case phase, cycleStartDate = "cycle_start_date", phaseDay = "phase_day", nextPhaseSwitchDate = "next_phase_switch_date"
}

enum ProjectionKey: String, JSONObjectKey {
    case weeklyRateKg = "weekly_rate_kg", estimatedWeeks = "estimated_weeks", projectedDate = "projected_date"
    case recommendedTargetDate = "recommended_target_date"
}

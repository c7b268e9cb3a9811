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
        var writer = JSONWriter(capacity: 800)
        writer.snapshot(self, order: keyOrder)
        return writer.bytes
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

/// The order in which each object of a snapshot lists its keys: section 6's, or one the
/// reader of the bytes prefers (PlanStore sends `plan_history` jsonb's own order). The
/// keys are sorted once, when the order is made, not per snapshot.
public struct SnapshotKeyOrder: Sendable {
    let snapshot: [SnapshotKey]
    let inputs: [InputsKey]
    let targets: [TargetsKey]
    let phase: [PhaseKey]
    let projection: [ProjectionKey]

    /// As plan-rules.md section 6 lists them (the declaration order of the key enums).
    public static let contract = SnapshotKeyOrder(
        snapshot: SnapshotKey.allCases, inputs: InputsKey.allCases, targets: TargetsKey.allCases,
        phase: PhaseKey.allCases, projection: ProjectionKey.allCases)

    /// Every object's keys sorted by `precedes` (given the key names).
    public init(sortedBy precedes: (String, String) -> Bool) {
        func sorted<Key: JSONObjectKey>(_: Key.Type) -> [Key] {
            Key.allCases.sorted { precedes($0.key.description, $1.key.description) }
        }
        self.init(snapshot: sorted(SnapshotKey.self), inputs: sorted(InputsKey.self), targets: sorted(TargetsKey.self),
                  phase: sorted(PhaseKey.self), projection: sorted(ProjectionKey.self))
    }

    private init(snapshot: [SnapshotKey], inputs: [InputsKey], targets: [TargetsKey], phase: [PhaseKey],
                 projection: [ProjectionKey]) {
        self.snapshot = snapshot
        self.inputs = inputs
        self.targets = targets
        self.phase = phase
        self.projection = projection
    }
}

/// The keys of one kind of JSON object, declared in the contract's order.
protocol JSONObjectKey: CaseIterable where AllCases == [Self] {
    var key: StaticString { get }
}

extension JSONWriter {
    /// `{"key":value,…}` with `keys` in the order given, each value written by `value`.
    mutating func object<Key: JSONObjectKey>(_ keys: [Key], _ value: (inout JSONWriter, Key) -> Void) {
        raw("{")
        for (index, key) in keys.enumerated() {
            raw(index == 0 ? "\"" : ",\"")
            raw(key.key)
            raw("\":")
            value(&self, key)
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
            case .heightCm: writer.tenths(i.heightTenthsCm)
            case .weightKgReported: writer.tenths(i.weightReportedTenthsKg)
            case .weightKgBasis: writer.tenths(i.weightBasisTenthsKg)
            case .primaryGoal: writer.string(i.primaryGoal.rawValue)
            case .activityLevel: writer.string(i.activityLevel.rawValue)
            case .targetWeightKg: writer.optional(i.targetWeightTenthsKg) { $0.tenths($1) }
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
            case .weeklyRateKg: writer.thousandths(p.weeklyRateThousandthsKg)
            case .estimatedWeeks: writer.optional(p.estimatedWeeks) { $0.int($1) }
            case .projectedDate: writer.optional(p.projectedDate) { $0.date($1) }
            case .recommendedTargetDate: writer.optional(p.recommendedTargetDate) { $0.date($1) }
            }
        }
    }
}

// The keys of section 6, in its order.

enum SnapshotKey: JSONObjectKey {
    case rulesVersion, planDate, reasons, inputs, targets, phase, projection, flags
    var key: StaticString {
        switch self {
        case .rulesVersion: "rules_version"
        case .planDate: "plan_date"
        case .reasons: "reasons"
        case .inputs: "inputs"
        case .targets: "targets"
        case .phase: "phase"
        case .projection: "projection"
        case .flags: "flags"
        }
    }
}

enum InputsKey: JSONObjectKey {
    case dateOfBirth, age, gender, heightCm, weightKgReported, weightKgBasis, primaryGoal, activityLevel
    case targetWeightKg, targetDate, dietaryPreferences, allergies, mealsPerDay, timezone, settingsUpdatedAt
    var key: StaticString {
        switch self {
        case .dateOfBirth: "date_of_birth"
        case .age: "age"
        case .gender: "gender"
        case .heightCm: "height_cm"
        case .weightKgReported: "weight_kg_reported"
        case .weightKgBasis: "weight_kg_basis"
        case .primaryGoal: "primary_goal"
        case .activityLevel: "activity_level"
        case .targetWeightKg: "target_weight_kg"
        case .targetDate: "target_date"
        case .dietaryPreferences: "dietary_preferences"
        case .allergies: "allergies"
        case .mealsPerDay: "meals_per_day"
        case .timezone: "timezone"
        case .settingsUpdatedAt: "settings_updated_at"
        }
    }
}

enum TargetsKey: JSONObjectKey {
    case bmr, tdee, calories, proteinG, fatG, carbsG, waterMl
    var key: StaticString {
        switch self {
        case .bmr: "bmr"
        case .tdee: "tdee"
        case .calories: "calories"
        case .proteinG: "protein_g"
        case .fatG: "fat_g"
        case .carbsG: "carbs_g"
        case .waterMl: "water_ml"
        }
    }
}

enum PhaseKey: JSONObjectKey {
    case phase, cycleStartDate, phaseDay, nextPhaseSwitchDate
    var key: StaticString {
        switch self {
        case .phase: "phase"
        case .cycleStartDate: "cycle_start_date"
        case .phaseDay: "phase_day"
        case .nextPhaseSwitchDate: "next_phase_switch_date"
        }
    }
}

enum ProjectionKey: JSONObjectKey {
    case weeklyRateKg, estimatedWeeks, projectedDate, recommendedTargetDate
    var key: StaticString {
        switch self {
        case .weeklyRateKg: "weekly_rate_kg"
        case .estimatedWeeks: "estimated_weeks"
        case .projectedDate: "projected_date"
        case .recommendedTargetDate: "recommended_target_date"
        }
    }
}

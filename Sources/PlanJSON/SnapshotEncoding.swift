// The snapshot object of plan-rules.md section 6, written by hand: nulls written, heights
// and weights with one decimal, `weekly_rate_kg` with up to three, dates `YYYY-MM-DD`,
// `settings_updated_at` RFC 3339 UTC with six fractional digits, no spaces. Equal
// snapshots give equal bytes.
//
// Two key orders, one set of fields: `jsonBytes()` writes the section's key order (what
// people, the worked examples and `--dry-run` read); `storageJSONBytes()` writes jsonb's
// own order (shorter keys first, then bytewise), for the `plan_history` columns.
// PostgreSQL keeps a jsonb object's keys in that order whatever order it is sent, so the
// stored value is the same; but its parser sorts each object's keys, and keys that arrive
// sorted cost it one pass instead of a sort: about a quarter of jsonb's parse time for a
// snapshot (README "Scale").

extension Snapshot {
    public func jsonBytes() -> [UInt8] { encoded(in: .contract) }

    /// The same object with every object's keys in jsonb's order: what the job COPYs
    /// into `plan_history.snapshot` and `previous`.
    public func storageJSONBytes() -> [UInt8] { encoded(in: .jsonb) }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }

    private func encoded(in order: JSONKeyOrder) -> [UInt8] {
        var writer = JSONWriter(capacity: 800)
        writer.snapshot(self, order: order)
        return writer.bytes
    }
}

/// The order in which an object's keys are written.
enum JSONKeyOrder {
    /// As plan-rules.md section 6 lists them (the declaration order of the field enums).
    case contract
    /// As PostgreSQL orders a jsonb object: by byte length, then bytewise.
    case jsonb
}

/// The keys of one kind of JSON object, declared in the contract's order.
protocol JSONObjectKey: CaseIterable where AllCases == [Self] {
    var key: StaticString { get }
    /// `allCases` sorted by `jsonbOrdered` (each conformer stores it once).
    static var jsonbOrder: [Self] { get }
}

extension JSONObjectKey {
    static func keys(in order: JSONKeyOrder) -> [Self] {
        order == .contract ? allCases : jsonbOrder
    }

    /// `allCases` in jsonb's key order.
    static func jsonbOrdered() -> [Self] {
        allCases.sorted { jsonbKeyPrecedes($0.key, $1.key) }
    }
}

/// jsonb's key order (PostgreSQL `lengthCompareJsonbString`): the shorter key first,
/// equal lengths bytewise.
func jsonbKeyPrecedes(_ a: StaticString, _ b: StaticString) -> Bool {
    a.withUTF8Buffer { a in
        b.withUTF8Buffer { b in
            a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
        }
    }
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

    mutating func snapshot(_ s: Snapshot, order: JSONKeyOrder) {
        object(SnapshotKey.keys(in: order)) { writer, key in
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

    private mutating func inputs(_ i: Snapshot.Inputs, order: JSONKeyOrder) {
        object(InputsKey.keys(in: order)) { writer, key in
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

    private mutating func targets(_ t: Snapshot.Targets, order: JSONKeyOrder) {
        object(TargetsKey.keys(in: order)) { writer, key in
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

    private mutating func phase(_ p: Snapshot.PhaseInfo, order: JSONKeyOrder) {
        object(PhaseKey.keys(in: order)) { writer, key in
            switch key {
            case .phase: writer.string(p.phase.rawValue)
            case .cycleStartDate: writer.optional(p.cycleStartDate) { $0.date($1) }
            case .phaseDay: writer.optional(p.phaseDay) { $0.int($1) }
            case .nextPhaseSwitchDate: writer.optional(p.nextPhaseSwitchDate) { $0.date($1) }
            }
        }
    }

    private mutating func projection(_ p: Snapshot.Projection, order: JSONKeyOrder) {
        object(ProjectionKey.keys(in: order)) { writer, key in
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
    static let jsonbOrder = jsonbOrdered()
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
    static let jsonbOrder = jsonbOrdered()
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
    static let jsonbOrder = jsonbOrdered()
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
    static let jsonbOrder = jsonbOrdered()
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
    static let jsonbOrder = jsonbOrdered()
    var key: StaticString {
        switch self {
        case .weeklyRateKg: "weekly_rate_kg"
        case .estimatedWeeks: "estimated_weeks"
        case .projectedDate: "projected_date"
        case .recommendedTargetDate: "recommended_target_date"
        }
    }
}

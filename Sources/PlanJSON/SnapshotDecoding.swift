import PlanRules

// Reading a snapshot back (from PostgreSQL `jsonb`, which reorders keys and adds
// spaces, or from `examples.jsonl`): any whitespace and key order; every key of
// section 6 must be present with the right type (nulls only where section 6 allows
// them); numbers must be exact at the field's precision. Keys section 6 does not name
// are ignored.

extension Snapshot {
    public init(json bytes: some Collection<UInt8>) throws(SnapshotDecodingError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw SnapshotDecodingError(path: "", reason: error.description)
        }
        try self.init(jsonValue: value)
    }

    /// Maps an already parsed JSON value (e.g. the `previous` object of an example line).
    public init(jsonValue value: JSONValue) throws(SnapshotDecodingError) {
        let root = try FieldReader(value, path: "")
        let inputs = try root.object("inputs")
        let targets = try root.object("targets")
        let phase = try root.object("phase")
        let projection = try root.object("projection")
        self.init(
            rulesVersion: try root.string("rules_version"),
            planDate: try root.date("plan_date"),
            reasons: try root.enumArray("reasons", of: DueReason.self),
            inputs: Inputs(
                dateOfBirth: try inputs.date("date_of_birth"),
                age: try inputs.int("age"),
                gender: try inputs.enumValue("gender"),
                heightTenthsCm: try inputs.fixedPoint("height_cm", decimals: 1),
                weightReportedTenthsKg: try inputs.fixedPoint("weight_kg_reported", decimals: 1),
                weightBasisTenthsKg: try inputs.fixedPoint("weight_kg_basis", decimals: 1),
                primaryGoal: try inputs.enumValue("primary_goal"),
                activityLevel: try inputs.enumValue("activity_level"),
                targetWeightTenthsKg: try inputs.optionalFixedPoint("target_weight_kg", decimals: 1),
                targetDate: try inputs.optionalDate("target_date"),
                dietaryPreferences: try inputs.strings("dietary_preferences"),
                allergies: try inputs.strings("allergies"),
                mealsPerDay: try inputs.int("meals_per_day"),
                timezone: try inputs.string("timezone"),
                settingsUpdatedAt: try inputs.optionalInstant("settings_updated_at")),
            targets: Targets(
                bmr: try targets.int("bmr"),
                tdee: try targets.int("tdee"),
                calories: try targets.int("calories"),
                proteinG: try targets.int("protein_g"),
                fatG: try targets.int("fat_g"),
                carbsG: try targets.int("carbs_g"),
                waterMl: try targets.int("water_ml")),
            phase: PhaseInfo(
                phase: try phase.enumValue("phase"),
                cycleStartDate: try phase.optionalDate("cycle_start_date"),
                phaseDay: try phase.optionalInt("phase_day"),
                nextPhaseSwitchDate: try phase.optionalDate("next_phase_switch_date")),
            projection: Projection(
                weeklyRateThousandthsKg: try projection.fixedPoint("weekly_rate_kg", decimals: 3),
                estimatedWeeks: try projection.optionalInt("estimated_weeks"),
                projectedDate: try projection.optionalDate("projected_date"),
                recommendedTargetDate: try projection.optionalDate("recommended_target_date")),
            flags: try root.enumArray("flags", of: Flag.self))
    }
}

/// Why a JSON text is not a snapshot: the dotted path of the offending key
/// (`inputs.height_cm`) and what was wrong, e.g.
/// `inputs.height_cm: expected a number with at most 1 decimal, found "1.78e2x"`.
public struct SnapshotDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        path.isEmpty ? "not a plan snapshot: \(reason)" : "not a plan snapshot: \(path): \(reason)"
    }
}

/// Typed access to the keys of one JSON object, with errors naming the full path.
private struct FieldReader {
    /// At most 15 keys: a linear search beats hashing here.
    let members: [JSONMember]
    let path: String

    init(_ value: JSONValue, path: String) throws(SnapshotDecodingError) {
        guard case .object(let list) = value else {
            throw SnapshotDecodingError(path: path, reason: "expected an object, found \(Self.kind(value))")
        }
        members = list
        self.path = path
    }

    func object(_ key: String) throws(SnapshotDecodingError) -> FieldReader {
        try FieldReader(try value(key), path: childPath(key))
    }

    func string(_ key: String) throws(SnapshotDecodingError) -> String {
        try string(key, try value(key))
    }

    func int(_ key: String) throws(SnapshotDecodingError) -> Int {
        try int(key, try value(key))
    }

    func date(_ key: String) throws(SnapshotDecodingError) -> LocalDate {
        try date(key, try value(key))
    }

    func fixedPoint(_ key: String, decimals: Int) throws(SnapshotDecodingError) -> Int {
        try fixedPoint(key, try value(key), decimals: decimals)
    }

    func enumValue<E: RawRepresentable<String>>(_ key: String) throws(SnapshotDecodingError) -> E {
        let text = try string(key)
        guard let value = E(rawValue: text) else { throw error(key, "unknown value \"\(text)\"") }
        return value
    }

    func strings(_ key: String) throws(SnapshotDecodingError) -> [String] {
        guard case .array(let elements) = try value(key) else { throw error(key, "expected an array of strings") }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { throw error(key, "expected an array of strings") }
            result.append(text)
        }
        return result
    }

    func enumArray<E: RawRepresentable<String>>(_ key: String, of type: E.Type) throws(SnapshotDecodingError) -> [E] {
        var result: [E] = []
        for text in try strings(key) {
            guard let value = E(rawValue: text) else { throw error(key, "unknown value \"\(text)\"") }
            result.append(value)
        }
        return result
    }

    // The optional… readers: nil for JSON null, else as the plain reader.

    func optionalInt(_ key: String) throws(SnapshotDecodingError) -> Int? {
        try isNull(key) ? nil : try int(key)
    }

    func optionalDate(_ key: String) throws(SnapshotDecodingError) -> LocalDate? {
        try isNull(key) ? nil : try date(key)
    }

    func optionalFixedPoint(_ key: String, decimals: Int) throws(SnapshotDecodingError) -> Int? {
        try isNull(key) ? nil : try fixedPoint(key, decimals: decimals)
    }

    func optionalInstant(_ key: String) throws(SnapshotDecodingError) -> Instant? {
        try isNull(key) ? nil : try instant(key)
    }

    private func isNull(_ key: String) throws(SnapshotDecodingError) -> Bool {
        if case .null = try value(key) { return true }
        return false
    }

    func instant(_ key: String) throws(SnapshotDecodingError) -> Instant {
        let text = try string(key)
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default:
            guard let instant = Instant(rfc3339: text) else {
                throw error(key, "expected an RFC 3339 timestamp, found \"\(text)\"")
            }
            return instant
        }
    }

    private func value(_ key: String) throws(SnapshotDecodingError) -> JSONValue {
        // The last of repeated keys wins, as in `jsonb`.
        guard let value = members.last(where: { $0.key == key })?.value else { throw error(key, "missing") }
        return value
    }

    private func string(_ key: String, _ value: JSONValue) throws(SnapshotDecodingError) -> String {
        guard case .string(let text) = value else { throw error(key, "expected a string, found \(Self.kind(value))") }
        return text
    }

    private func int(_ key: String, _ value: JSONValue) throws(SnapshotDecodingError) -> Int {
        try fixedPoint(key, value, decimals: 0)
    }

    private func fixedPoint(_ key: String, _ value: JSONValue, decimals: Int) throws(SnapshotDecodingError) -> Int {
        guard case .number(let number) = value else {
            throw error(key, "expected a number, found \(Self.kind(value))")
        }
        guard let scaled = number.scaled(decimals: decimals) else {
            let what = decimals == 0 ? "an integer" : "a number with at most \(decimals) decimal\(decimals == 1 ? "" : "s")"
            throw error(key, "expected \(what), found \(number.text)")
        }
        return scaled
    }

    private func date(_ key: String, _ value: JSONValue) throws(SnapshotDecodingError) -> LocalDate {
        let text = try string(key, value)
        guard let date = LocalDate(iso8601: text) else { throw error(key, "expected a YYYY-MM-DD date, found \"\(text)\"") }
        return date
    }

    private func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    private func error(_ key: String, _ reason: String) -> SnapshotDecodingError {
        SnapshotDecodingError(path: childPath(key), reason: reason)
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let number): "the number \(number.text)"
        case .string(let text): "the string \"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

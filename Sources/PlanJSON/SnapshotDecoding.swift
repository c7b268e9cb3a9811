import PlanRules

// Reading a snapshot back (from PostgreSQL `jsonb`, which reorders keys and adds
// spaces, or from `examples.jsonl`): any whitespace and key order; every key of
// section 6 must be present with the right type (nulls only where section 6 allows
// them); numbers must be exact at the field's precision. Keys section 6 does not name
// are ignored.

extension Snapshot {
    /// Reads the bytes in place: a plain snapshot (what the job and `jsonb` write) goes
    /// through `SnapshotReader`, with no tree and no String per key; anything else through
    /// the general parser and `init(jsonValue:)`, which decide and name the error.
    public init(json bytes: UnsafeBufferPointer<UInt8>) throws(SnapshotDecodingError) {
        if let snapshot = SnapshotReader.read(bytes) {
            self = snapshot
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw SnapshotDecodingError(path: "", reason: error.description)
        }
        try self.init(jsonValue: value)
    }

    /// JSON text (a stored plan as `snapshot::text` returns it, an example's line), read
    /// in place, without copying the text into an array first.
    public init(json text: String) throws(SnapshotDecodingError) {
        try self.init(json: text.utf8)
    }

    /// Any bytes (`[UInt8]`, a slice): inlined into the caller, so that it costs no generic
    /// metadata at run time, and read in place when the collection is contiguous.
    @inlinable
    public init(json bytes: some Collection<UInt8>) throws(SnapshotDecodingError) {
        let read = { (buffer: UnsafeBufferPointer<UInt8>) in
            Result { () throws(SnapshotDecodingError) in try Snapshot(json: buffer) }
        }
        let result = bytes.withContiguousStorageIfAvailable(read) ?? Array(bytes).withUnsafeBufferPointer(read)
        self = try result.get()
    }

    /// Maps an already parsed JSON value (e.g. the `previous` object of an example line).
    public init(jsonValue value: JSONValue) throws(SnapshotDecodingError) {
        let root = try FieldReader<SnapshotKey>(value, path: "")
        let inputs = try root.object(.inputs, InputsKey.self)
        let targets = try root.object(.targets, TargetsKey.self)
        let phase = try root.object(.phase, PhaseKey.self)
        let projection = try root.object(.projection, ProjectionKey.self)
        self.init(
            rulesVersion: try root.string(.rulesVersion),
            planDate: try root.date(.planDate),
            reasons: try root.enumArray(.reasons),
            inputs: Inputs(
                dateOfBirth: try inputs.date(.dateOfBirth),
                age: try inputs.int(.age),
                gender: try inputs.enumValue(.gender),
                heightTenthsCm: try inputs.tenths(.heightCm),
                weightReportedTenthsKg: try inputs.tenths(.weightKgReported),
                weightBasisTenthsKg: try inputs.tenths(.weightKgBasis),
                primaryGoal: try inputs.enumValue(.primaryGoal),
                activityLevel: try inputs.enumValue(.activityLevel),
                targetWeightTenthsKg: try inputs.optional(.targetWeightKg, inputs.tenths),
                targetDate: try inputs.optional(.targetDate, inputs.date),
                dietaryPreferences: try inputs.strings(.dietaryPreferences),
                allergies: try inputs.strings(.allergies),
                mealsPerDay: try inputs.int(.mealsPerDay),
                timezone: try inputs.string(.timezone),
                settingsUpdatedAt: try inputs.optional(.settingsUpdatedAt, inputs.instant)),
            targets: Targets(
                bmr: try targets.int(.bmr),
                tdee: try targets.int(.tdee),
                calories: try targets.int(.calories),
                proteinG: try targets.int(.proteinG),
                fatG: try targets.int(.fatG),
                carbsG: try targets.int(.carbsG),
                waterMl: try targets.int(.waterMl)),
            phase: PhaseInfo(
                phase: try phase.enumValue(.phase),
                cycleStartDate: try phase.optional(.cycleStartDate, phase.date),
                phaseDay: try phase.optional(.phaseDay, phase.int),
                nextPhaseSwitchDate: try phase.optional(.nextPhaseSwitchDate, phase.date)),
            projection: Projection(
                weeklyRateThousandthsKg: try projection.fixedPoint(.weeklyRateKg, decimals: 3),
                estimatedWeeks: try projection.optional(.estimatedWeeks, projection.int),
                projectedDate: try projection.optional(.projectedDate, projection.date),
                recommendedTargetDate: try projection.optional(.recommendedTargetDate, projection.date)),
            flags: try root.enumArray(.flags))
    }
}

/// Why a JSON text is not a snapshot: the dotted path of the offending key
/// (`inputs.height_cm`) and what was wrong, e.g.
/// `inputs.height_cm: expected a number with at most 1 decimal, found "1.78e2x"`.
public struct SnapshotDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String {
        path.isEmpty ? "not a plan snapshot: \(reason)" : "not a plan snapshot: \(path): \(reason)"
    }
}

/// Typed access to the keys (section 6's names) of one JSON object, with errors naming the
/// full path.
private struct FieldReader<Key: JSONObjectKey> {
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

    func object<Child>(_ key: Key, _: Child.Type) throws(SnapshotDecodingError) -> FieldReader<Child> {
        try FieldReader<Child>(try value(key), path: childPath(key))
    }

    func string(_ key: Key) throws(SnapshotDecodingError) -> String {
        let value = try value(key)
        guard case .string(let text) = value else { throw error(key, "expected a string, found \(Self.kind(value))") }
        return text
    }

    func int(_ key: Key) throws(SnapshotDecodingError) -> Int { try fixedPoint(key, decimals: 0) }

    func tenths(_ key: Key) throws(SnapshotDecodingError) -> Int { try fixedPoint(key, decimals: 1) }

    func fixedPoint(_ key: Key, decimals: Int) throws(SnapshotDecodingError) -> Int {
        let value = try value(key)
        guard case .number(let number) = value else {
            throw error(key, "expected a number, found \(Self.kind(value))")
        }
        guard let scaled = number.scaled(decimals: decimals) else {
            let what = decimals == 0 ? "an integer" : "a number with at most \(decimals) decimal\(decimals == 1 ? "" : "s")"
            throw error(key, "expected \(what), found \(number.text)")
        }
        return scaled
    }

    func date(_ key: Key) throws(SnapshotDecodingError) -> LocalDate {
        let text = try string(key)
        guard let date = LocalDate(iso8601: text) else { throw error(key, "expected a YYYY-MM-DD date, found \"\(text)\"") }
        return date
    }

    func enumValue<E: RawRepresentable<String>>(_ key: Key) throws(SnapshotDecodingError) -> E {
        let text = try string(key)
        guard let value = E(rawValue: text) else { throw error(key, "unknown value \"\(text)\"") }
        return value
    }

    func strings(_ key: Key) throws(SnapshotDecodingError) -> [String] {
        guard case .array(let elements) = try value(key) else { throw error(key, "expected an array of strings") }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { throw error(key, "expected an array of strings") }
            result.append(text)
        }
        return result
    }

    func enumArray<E: RawRepresentable<String>>(_ key: Key) throws(SnapshotDecodingError) -> [E] {
        var result: [E] = []
        for text in try strings(key) {
            guard let value = E(rawValue: text) else { throw error(key, "unknown value \"\(text)\"") }
            result.append(value)
        }
        return result
    }

    func instant(_ key: Key) throws(SnapshotDecodingError) -> Instant {
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

    /// nil for JSON null, else what `read` makes of the key.
    func optional<T>(_ key: Key, _ read: (Key) throws(SnapshotDecodingError) -> T) throws(SnapshotDecodingError) -> T? {
        if case .null = try value(key) { return nil }
        return try read(key)
    }

    private func value(_ key: Key) throws(SnapshotDecodingError) -> JSONValue {
        // The last of repeated keys wins, as in `jsonb`.
        let name = key.rawValue
        guard let value = members.last(where: { $0.key == name })?.value else { throw error(key, "missing") }
        return value
    }

    private func childPath(_ key: Key) -> String { path.isEmpty ? key.rawValue : path + "." + key.rawValue }

    private func error(_ key: Key, _ reason: String) -> SnapshotDecodingError {
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

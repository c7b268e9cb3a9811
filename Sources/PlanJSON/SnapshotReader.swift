#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlanRules

/// Reads a snapshot straight from its bytes, the way a run reads every stored plan back: no
/// `JSONValue` tree, no String per key or number, each key's bytes matched against the names
/// section 6 allows and the value read in place.
///
/// It only ever accepts what the tree decoder (`Snapshot(jsonValue:)` over `JSONValue`)
/// accepts, with the same result; anything else — an unknown or repeated key, an escape
/// in a string, a missing key, a wrong type, bad JSON — makes it give up (nil), and the
/// tree decoder then decides and names the error. So it need not repeat the tree
/// decoder's messages, only its grammar: any JSON whitespace, any key order (jsonb's,
/// section 6's), numbers by JSON's grammar and exact at the field's precision.
struct SnapshotReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let names = SnapshotNames.shared

    /// The snapshot, or nil when the bytes are not a plain snapshot (see above).
    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Snapshot? {
        var reader = SnapshotReader(bytes: bytes)
        reader.skipWhitespace()
        guard let snapshot = reader.snapshot() else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? snapshot : nil
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: - The objects of section 6

    private mutating func snapshot() -> Snapshot? {
        var rulesVersion = "", planDate = LocalDate(daysSinceEpoch: 0), reasons: [DueReason] = [], flags: [Flag] = []
        var inputs: Snapshot.Inputs?, targets: Snapshot.Targets?, phase: Snapshot.PhaseInfo?
        var projection: Snapshot.Projection?
        let complete = object(names.snapshotKeys) { r, key in
            switch key {
            case .rulesVersion: set(&rulesVersion, r.string())
            case .planDate: set(&planDate, r.date())
            case .reasons: set(&reasons, r.array { $0.enumValue($0.names.dueReasons) })
            case .inputs: set(&inputs, r.inputs())
            case .targets: set(&targets, r.targets())
            case .phase: set(&phase, r.phase())
            case .projection: set(&projection, r.projection())
            case .flags: set(&flags, r.array { $0.enumValue($0.names.flags) })
            }
        }
        guard complete, let inputs, let targets, let phase, let projection else { return nil }
        return Snapshot(rulesVersion: rulesVersion, planDate: planDate, reasons: reasons, inputs: inputs,
                        targets: targets, phase: phase, projection: projection, flags: flags)
    }

    private mutating func inputs() -> Snapshot.Inputs? {
        var dateOfBirth = LocalDate(daysSinceEpoch: 0), age = 0, gender = Gender.other
        var height = 0, weightReported = 0, weightBasis = 0, mealsPerDay = 0
        var goal = PrimaryGoal.maintainWeight, activity = ActivityLevel.sedentary
        var targetWeight: Int?, targetDate: LocalDate?, updatedAt: Instant?
        var dietaryPreferences: [String] = [], allergies: [String] = [], timezone = ""
        let complete = object(names.inputsKeys) { r, key in
            switch key {
            case .dateOfBirth: set(&dateOfBirth, r.date())
            case .age: set(&age, r.fixedPoint(decimals: 0))
            case .gender: set(&gender, r.enumValue(r.names.genders))
            case .heightCm: set(&height, r.fixedPoint(decimals: 1))
            case .weightKgReported: set(&weightReported, r.fixedPoint(decimals: 1))
            case .weightKgBasis: set(&weightBasis, r.fixedPoint(decimals: 1))
            case .primaryGoal: set(&goal, r.enumValue(r.names.goals))
            case .activityLevel: set(&activity, r.enumValue(r.names.activityLevels))
            case .targetWeightKg: set(&targetWeight, r.nullable { $0.fixedPoint(decimals: 1) })
            case .targetDate: set(&targetDate, r.nullable { $0.date() })
            case .dietaryPreferences: set(&dietaryPreferences, r.array { $0.string() })
            case .allergies: set(&allergies, r.array { $0.string() })
            case .mealsPerDay: set(&mealsPerDay, r.fixedPoint(decimals: 0))
            case .timezone: set(&timezone, r.string())
            case .settingsUpdatedAt: set(&updatedAt, r.nullable { $0.instant() })
            }
        }
        guard complete else { return nil }
        return Snapshot.Inputs(
            dateOfBirth: dateOfBirth, age: age, gender: gender, heightTenthsCm: height,
            weightReportedTenthsKg: weightReported, weightBasisTenthsKg: weightBasis, primaryGoal: goal,
            activityLevel: activity, targetWeightTenthsKg: targetWeight, targetDate: targetDate,
            dietaryPreferences: dietaryPreferences, allergies: allergies, mealsPerDay: mealsPerDay,
            timezone: timezone, settingsUpdatedAt: updatedAt)
    }

    private mutating func targets() -> Snapshot.Targets? {
        var t = Snapshot.Targets(bmr: 0, tdee: 0, calories: 0, proteinG: 0, fatG: 0, carbsG: 0, waterMl: 0)
        let complete = object(names.targetsKeys) { r, key in
            let value = r.fixedPoint(decimals: 0)
            switch key {
            case .bmr: return set(&t.bmr, value)
            case .tdee: return set(&t.tdee, value)
            case .calories: return set(&t.calories, value)
            case .proteinG: return set(&t.proteinG, value)
            case .fatG: return set(&t.fatG, value)
            case .carbsG: return set(&t.carbsG, value)
            case .waterMl: return set(&t.waterMl, value)
            }
        }
        return complete ? t : nil
    }

    private mutating func phase() -> Snapshot.PhaseInfo? {
        var p = Snapshot.PhaseInfo(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil)
        let complete = object(names.phaseKeys) { r, key in
            switch key {
            case .phase: set(&p.phase, r.enumValue(r.names.phases))
            case .cycleStartDate: set(&p.cycleStartDate, r.nullable { $0.date() })
            case .phaseDay: set(&p.phaseDay, r.nullable { $0.fixedPoint(decimals: 0) })
            case .nextPhaseSwitchDate: set(&p.nextPhaseSwitchDate, r.nullable { $0.date() })
            }
        }
        return complete ? p : nil
    }

    private mutating func projection() -> Snapshot.Projection? {
        var p = Snapshot.Projection(weeklyRateThousandthsKg: 0, estimatedWeeks: nil, projectedDate: nil,
                                    recommendedTargetDate: nil)
        let complete = object(names.projectionKeys) { r, key in
            switch key {
            case .weeklyRateKg: set(&p.weeklyRateThousandthsKg, r.fixedPoint(decimals: 3))
            case .estimatedWeeks: set(&p.estimatedWeeks, r.nullable { $0.fixedPoint(decimals: 0) })
            case .projectedDate: set(&p.projectedDate, r.nullable { $0.date() })
            case .recommendedTargetDate: set(&p.recommendedTargetDate, r.nullable { $0.date() })
            }
        }
        return complete ? p : nil
    }

    // MARK: - JSON, the plain subset

    /// `{"key": value, …}` with every key of `keys` exactly once (any order); `member` reads
    /// each value and returns false when it is not what the key needs. False for anything
    /// else: an unknown or repeated key, a missing one, bad JSON.
    private mutating func object<Key>(
        _ keys: NameTable<Key>, _ member: (inout SnapshotReader, Key) -> Bool
    ) -> Bool {
        guard take("{") else { return false }
        var seen: UInt64 = 0
        skipWhitespace()
        if take("}") { return keys.count == 0 }
        while true {
            skipWhitespace()
            guard let name = plainString(), let position = keys.position(of: name),
                  seen & (1 << position) == 0 else { return false }
            seen |= 1 << position
            skipWhitespace()
            guard take(":") else { return false }
            skipWhitespace()
            guard member(&self, keys.values[position]) else { return false }
            skipWhitespace()
            if take(",") { continue }
            return take("}") && seen == (1 << keys.count) - 1
        }
    }

    /// `[element, …]`, nil when an element is not what `element` reads.
    private mutating func array<Element>(_ element: (inout SnapshotReader) -> Element?) -> [Element]? {
        guard take("[") else { return nil }
        var elements: [Element] = []
        skipWhitespace()
        if take("]") { return elements }
        while true {
            skipWhitespace()
            guard let value = element(&self) else { return nil }
            elements.append(value)
            skipWhitespace()
            if take(",") { continue }
            return take("]") ? elements : nil
        }
    }

    /// `.some(nil)` for JSON null, else what `read` reads (nil, not a value, when that fails).
    private mutating func nullable<T>(_ read: (inout SnapshotReader) -> T?) -> T?? {
        if bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
           bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") {
            index += 4
            return .some(nil)
        }
        return read(&self).map { .some($0) }
    }

    /// The bytes between the quotes of a string without escapes or control characters (the
    /// only kind `jsonb` and the job write for section 6's values), not yet checked as UTF-8.
    ///
    /// The position is kept in a local while scanning: advancing `index`, a stored property
    /// of the reader, stored it back at every byte of every key and value.
    private mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard take("\"") else { return nil }
        let start = index
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<end])
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            end += 1
        }
        return nil
    }

    private mutating func string() -> String? {
        guard let text = plainString() else { return nil }
        // ASCII (zone names, the rules version, most preferences) is valid UTF-8 as it is,
        // and `String(decoding:)` is specialized here; `String(validating:)` is generic, and
        // its metadata lookups cost more than the check itself.
        if text.allSatisfy({ $0 < 0x80 }) { return String(decoding: text, as: UTF8.self) }
        return String(validating: text, as: UTF8.self)
    }

    /// A name of `table` (ASCII, so equal bytes are equal Strings).
    private mutating func enumValue<Value>(_ table: NameTable<Value>) -> Value? {
        plainString().flatMap { table.position(of: $0) }.map { table.values[$0] }
    }

    private mutating func date() -> LocalDate? {
        plainString().flatMap { LocalDate(iso8601: $0) }
    }

    /// `settings_updated_at`: RFC 3339, or PostgreSQL's `infinity` / `-infinity`.
    private mutating func instant() -> Instant? {
        guard let text = plainString() else { return nil }
        if text.elementsEqual("infinity".utf8) { return .distantFuture }
        if text.elementsEqual("-infinity".utf8) { return .distantPast }
        return Instant(rfc3339: text)
    }

    /// A number by JSON's grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, × 10^`decimals`
    /// when that is an exact `Int` (`JSONNumber.scaled(decimals:)`).
    private mutating func fixedPoint(decimals: Int) -> Int? {
        let start = index
        _ = take("-")
        if !take("0") {
            guard skipDigits() else { return nil }
        }
        if take(".") {
            guard skipDigits() else { return nil }
        }
        if take("e") || take("E") {
            _ = take("+") || take("-")
            guard skipDigits() else { return nil }
        }
        return JSONNumber.scaled(utf8: UnsafeBufferPointer(rebasing: bytes[start..<index]), decimals: decimals)
    }

    /// Skips `[0-9]+`; false when there is no digit.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    private mutating func take(_ expected: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: expected) else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }
}

/// Stores `value` in `target`; false when there is none (the reader then gives up).
private func set<T>(_ target: inout T, _ value: T?) -> Bool {
    guard let value else { return false }
    target = value
    return true
}

/// The names a snapshot may contain, as bytes: its keys and its enums' raw values. Made once.
private final class SnapshotNames: Sendable {
    static let shared = SnapshotNames()

    let snapshotKeys = NameTable(SnapshotKey.allCases)
    let inputsKeys = NameTable(InputsKey.allCases)
    let targetsKeys = NameTable(TargetsKey.allCases)
    let phaseKeys = NameTable(PhaseKey.allCases)
    let projectionKeys = NameTable(ProjectionKey.allCases)
    let genders = NameTable(Gender.allCases)
    let goals = NameTable(PrimaryGoal.allCases)
    let activityLevels = NameTable(ActivityLevel.allCases)
    let phases = NameTable(Phase.allCases)
    let dueReasons = NameTable(DueReason.allCases)
    let flags = NameTable(Flag.allCases)
}

/// A few ASCII names (at most 64) and their values, found by their UTF-8 bytes: the length
/// first, then the bytes. Linear: at most 15 names, most of other lengths.
private struct NameTable<Value: Sendable>: Sendable {
    let values: [Value]
    /// The names one after the other; name `i` is `bytes[starts[i]..<starts[i + 1]]`.
    private let bytes: [UInt8]
    private let starts: [Int]

    var count: Int { values.count }

    init(_ values: [Value]) where Value: RawRepresentable<String> {
        precondition(values.count <= 64 && values.allSatisfy { $0.rawValue.utf8.allSatisfy { $0 < 0x80 } })
        self.values = values
        bytes = values.flatMap { Array($0.rawValue.utf8) }
        starts = values.reduce(into: [0]) { starts, value in starts.append(starts.last! + value.rawValue.utf8.count) }
    }

    /// Compared with memcmp: `elementsEqual` over two buffer slices went byte by byte
    /// through the generic sequence path, for every key and enum value of every stored
    /// plan a run reads.
    func position(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { bytes in
            for position in values.indices where starts[position + 1] - starts[position] == name.count {
                // Both non-empty when compared: a name of this length lies in `bytes`.
                if name.isEmpty || memcmp(bytes.baseAddress! + starts[position], name.baseAddress!, name.count) == 0 {
                    return position
                }
            }
            return nil
        }
    }
}

@testable import PlanJSON
import PlanRules
import Testing

/// `Snapshot(json:)` reads plain snapshots with `SnapshotReader` (no tree) and leaves
/// everything else to the tree decoder. Whatever the input, the result — the snapshot, or
/// the error's path and reason — must be the tree decoder's: `treeDecoded` below is
/// `Snapshot(json:)` as it was before the reader.
struct SnapshotReaderTests {
    typealias Generator = PropertySweepTests.SeededGenerator

    /// Two thousand snapshots: computed plans of random profiles, then with what a plan of
    /// one day does not vary varied (every phase, dates or nulls, reasons, flags, the
    /// infinities, strings with escapes and non-ASCII, numbers of every precision).
    static let snapshots: [Snapshot] = {
        var rng = Generator(state: 2026_17)
        var result: [Snapshot] = []
        while result.count < 2000 {
            let row = PropertySweepTests.randomRow(&rng, userID: Int64(result.count))
            guard let settings = PropertySweepTests.validSettings(row) else { continue }
            var plan = computePlan(from: settings, planDate: PropertySweepTests.planDate, reasons: [.created],
                                   currentPlan: nil)
            func maybe<T>(_ value: T) -> T? { Bool.random(using: &rng) ? value : nil }
            func date() -> LocalDate { LocalDate(daysSinceEpoch: Int.random(in: -30_000...80_000, using: &rng)) }
            let strings = ["vegan", "halal", "végétarien 🌱", "say \"hi\"", "back\\slash", "", "tab\there", "日本語"]
            plan.planDate = date()
            plan.reasons = DueReason.allCases.filter { _ in Bool.random(using: &rng) }
            plan.flags = Flag.allCases.filter { _ in Bool.random(using: &rng) }
            plan.rulesVersion = ["2026.1", "2025.0", "x"].randomElement(using: &rng)!
            plan.inputs.timezone = ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Europe/Zürich"].randomElement(using: &rng)!
            if Int.random(in: 0..<4, using: &rng) == 0 {
                plan.inputs.dietaryPreferences = strings.filter { _ in Bool.random(using: &rng) }
                plan.inputs.allergies = strings.filter { _ in Bool.random(using: &rng) }
            }
            plan.inputs.settingsUpdatedAt = [
                nil, .distantPast, .distantFuture,
                Instant(microsecondsSinceEpoch: Int64.random(in: -2_000_000_000_000_000...4_000_000_000_000_000, using: &rng)),
            ].randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                plan.phase = Snapshot.PhaseInfo(
                    phase: Phase.allCases.randomElement(using: &rng)!, cycleStartDate: maybe(date()),
                    phaseDay: maybe(Int.random(in: 0...27, using: &rng)), nextPhaseSwitchDate: maybe(date()))
            }
            plan.projection = Snapshot.Projection(
                weeklyRateThousandthsKg: [0, 5, 12, 250, 227, 1000, Int.random(in: 0...2000, using: &rng)]
                    .randomElement(using: &rng)!,
                estimatedWeeks: maybe(Int.random(in: 1...520, using: &rng)), projectedDate: maybe(date()),
                recommendedTargetDate: maybe(date()))
            result.append(plan)
        }
        return result
    }()

    /// Every generated snapshot in section 6's compact order, jsonb's compact key order,
    /// jsonb's text (spaces after `:` and `,`), and with other JSON whitespace: the reader
    /// takes each one without the tree unless a string has an escape, and gives the same
    /// snapshot.
    @Test func generatedSnapshotsDecodeAsTheTreeDoesInEveryKeyOrderAndSpacing() throws {
        let jsonbOrder = SnapshotKeyOrder(sortedBy: {
            $0.utf8.count != $1.utf8.count ? $0.utf8.count < $1.utf8.count : $0.utf8.lexicographicallyPrecedes($1.utf8)
        })
        var read = 0
        var goals = Set<PrimaryGoal>(), phases = Set<Phase>()
        for (index, snapshot) in Self.snapshots.enumerated() {
            let compact = snapshot.jsonBytes()
            let tree = try JSONValue(parsing: compact)
            let forms: [(String, [UInt8])] = [
                ("contract order", compact),
                ("jsonb key order", snapshot.jsonBytes(keyOrder: jsonbOrder)),
                ("jsonb text", Array(jsonbStyle(tree).utf8)),
                ("other whitespace", Array(("\r\n " + jsonbStyle(tree) + "\t\n").replacingOccurrences(of: ", ", with: " ,\n\t")
                    .replacingOccurrences(of: ": ", with: "\r:\n ").utf8)),
            ]
            let hasEscapes = compact.contains(UInt8(ascii: "\\"))
            for (form, bytes) in forms {
                #expect(Self.decoded(bytes) == .success(snapshot), "snapshot \(index), \(form)")
                #expect(Self.treeDecoded(bytes) == .success(snapshot), "snapshot \(index), \(form)")
                #expect(try Snapshot(json: String(decoding: bytes, as: UTF8.self)) == snapshot, "snapshot \(index), \(form)")
                let direct = bytes.withUnsafeBufferPointer { SnapshotReader.read($0) }
                #expect(direct == (hasEscapes ? nil : snapshot), "snapshot \(index), \(form)")
                if direct != nil { read += 1 }
            }
            goals.insert(snapshot.inputs.primaryGoal)
            phases.insert(snapshot.phase.phase)
        }
        #expect(goals == Set(PrimaryGoal.allCases) && phases == Set(Phase.allCases))
        #expect(read > Self.snapshots.count * 4 * 2 / 3, "most go through the reader")
    }

    /// Removing each key, and giving each key a value of every JSON type: the same error
    /// (path and reason) as the tree decoder, or the same snapshot where the tree accepts
    /// the value (null for a nullable field, `1` for an integer).
    @Test func aMissingKeyOrAWrongTypeGivesTheTreeDecodersError() throws {
        let snapshot = Self.snapshots[3]
        let root = try JSONValue(parsing: snapshot.jsonBytes())
        let replacements: [JSONValue?] = [
            nil, .null, .bool(true), .string("x"), .string("2026-03-02"), .string("lose_weight"),
            try JSONValue(parsing: "1"), try JSONValue(parsing: "1.25"), try JSONValue(parsing: "-0.5e1"),
            .array([]), .array([.string("x")]), .array([.null]), .object([]), try JSONValue(parsing: #"{"a": [1]}"#),
        ]
        var failures = Set<String>()
        for path in Self.keyPaths(root) {
            for replacement in replacements {
                let changed = Self.replacing(path, in: root, with: replacement)
                for bytes in [changed.jsonBytes(), Array(jsonbStyle(changed).utf8)] {
                    let result = Self.decoded(bytes)
                    #expect(result == Self.treeDecoded(bytes), "\(path) → \(replacement?.jsonString ?? "removed")")
                    if case .failure(let error) = result { failures.insert(error.path + ": " + error.reason) }
                }
            }
        }
        // The messages are the tree decoder's, e.g.:
        #expect(failures.contains("inputs.height_cm: missing"))
        #expect(failures.contains("targets.bmr: expected a number, found null"))
        #expect(failures.contains("inputs.age: expected an integer, found 1.25"))
        #expect(failures.contains("phase: expected an object, found an array"))
        #expect(failures.contains("plan_date: expected a YYYY-MM-DD date, found \"x\""))
        #expect(failures.contains("reasons: unknown value \"x\""))
    }

    /// Bad numbers and dates, an object nested once more, repeated keys (the last wins),
    /// unknown keys (ignored), escapes, bad UTF-8: the reader gives up or agrees, and the
    /// result is the tree decoder's.
    @Test(arguments: [
        (#""height_cm": 178.0"#, #""height_cm": 178.05"#),
        (#""height_cm": 178.0"#, #""height_cm": 1e400"#),
        (#""height_cm": 178.0"#, #""height_cm": 01"#),
        (#""height_cm": 178.0"#, #""height_cm": 1."#),
        (#""height_cm": 178.0"#, #""height_cm": -"#),
        (#""height_cm": 178.0"#, #""height_cm": 1.78e2"#),
        (#""height_cm": 178.0"#, #""height_cm": 17800E-2"#),
        (#""height_cm": 178.0"#, #""height_cm": 178.000000000000000000000"#),
        (#""height_cm": 178.0"#, #""height_cm": -0"#),
        (#""age": 32"#, #""age": 99999999999999999999"#),
        (#""weekly_rate_kg": 0.227"#, #""weekly_rate_kg": 0.2275"#),
        (#""plan_date": "2026-03-02""#, #""plan_date": "2026-02-30""#),
        (#""plan_date": "2026-03-02""#, #""plan_date": "2026-3-02""#),
        (#""plan_date": "2026-03-02""#, #""plan_date": "2026-03-02 ""#),
        (#""plan_date": "2026-03-02""#, #""plan_date": "\u0032026-03-02""#),
        (#""gender": "male""#, #""gender": "Male""#),
        (#""gender": "male""#, #""gender": "m\u0061le""#),
        (#""age": 32"#, #""\u0061ge": 32"#),
        (#""age": 32"#, #""age": 32, "age": 33"#),
        (#""age": 32"#, #""age": 32, "age": "33""#),
        (#""age": 32"#, #""age": "32", "age": 33"#),
        (#""age": 32"#, #""age": 32, "extra": {"deep": [1, {"x": null}]}"#),
        (#""age": 32"#, #""age": 32, "extra": [[[[]]]]"#),
        (#""rules_version": "2026.1""#, #""rules_version": "2026.1", "rules_version": "2027.1""#),
        (#""rules_version": "2026.1""#, #""rules_version": "2026.1\n""#),
        (#""rules_version": "2026.1""#, #""rules_version": "2026.1 \u00e9""#),
        (#""timezone": "UTC""#, #""timezone": "UTC\/x""#),
        (#""timezone": "UTC""#, #""timezone": "Zürich""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": "infinity""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": "-infinity""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": "Infinity""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": "2026-03-01T09:00:00+01:00""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": "2026-03-01 09:00:00Z""#),
        (#""settings_updated_at": null"#, #""settings_updated_at": nul"#),
        (#""settings_updated_at": null"#, #""settings_updated_at": nullx"#),
        (#""flags": []"#, #""flags": [ ]"#),
        (#""flags": []"#, #""flags": [,]"#),
        (#""flags": []"#, #""flags": ["macro_overflow",]"#),
        (#""flags": []"#, #""flags": ["macro_overflow" "timeline_unrealistic"]"#),
        (#""flags": []"#, #""flags": {}"#),
    ])
    func oddValuesGiveTheTreeDecodersResult(original: String, replacement: String) throws {
        let text = Self.fixedText
        #expect(text.contains(original))
        let bytes = Array(text.replacingOccurrences(of: original, with: replacement).utf8)
        #expect(Self.decoded(bytes) == Self.treeDecoded(bytes))
    }

    /// The snapshot nested once more, as another key's value or as the whole document.
    @Test func extraNestingGivesTheTreeDecodersError() throws {
        let text = Self.fixedText
        let nestings = [
            "{\"inputs\": " + text + "}",
            "[" + text + "]",
            text.replacingOccurrences(of: "\"inputs\": {", with: "\"inputs\": {\"inputs\": {"),
            text.replacingOccurrences(of: "\"targets\": {", with: "\"targets\": [{").replacingOccurrences(of: "}, \"plan_date\"", with: "}], \"plan_date\""),
            text.replacingOccurrences(of: "\"reasons\": [", with: "\"reasons\": [["),
        ]
        for nested in nestings {
            let bytes = Array(nested.utf8)
            let result = Self.decoded(bytes)
            #expect(result == Self.treeDecoded(bytes), "\(nested.prefix(60))")
            #expect(throws: SnapshotDecodingError.self) { try result.get() }
        }
    }

    /// Every prefix of a snapshot, the snapshot with text after it, and nothing at all.
    @Test func truncatedInputAndTrailingTextGiveTheTreeDecodersError() throws {
        let bytes = Array(Self.fixedText.utf8)
        for end in 0..<bytes.count {
            let prefix = Array(bytes[..<end])
            #expect(Self.decoded(prefix) == Self.treeDecoded(prefix), "first \(end) bytes")
        }
        for tail in [" x", "}", ",", " {}", "\u{0}", "\u{FEFF}"] {
            let longer = bytes + Array(tail.utf8)
            #expect(Self.decoded(longer) == Self.treeDecoded(longer), "\(tail.debugDescription) after the snapshot")
            let shorter = Array(tail.utf8) + bytes
            #expect(Self.decoded(shorter) == Self.treeDecoded(shorter), "\(tail.debugDescription) before it")
        }
    }

    /// Ten thousand random edits of a byte (JSON's punctuation, digits, letters, bad UTF-8),
    /// deletions and duplications: whatever they make, the result is the tree decoder's.
    @Test func randomByteEditsGiveTheTreeDecodersResult() throws {
        var rng = Generator(state: 17)
        let original = Array(Self.fixedText.utf8)
        let alphabet = Array(#" {}[],:"\0123456789.-+eEnulltrufase_x"#.utf8) + [0x09, 0x0A, 0x0D, 0x01, 0xC3, 0xA9, 0xFF]
        var accepted = 0
        for _ in 0..<10_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
            }
            let result = Self.decoded(bytes)
            #expect(result == Self.treeDecoded(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            if case .success = result { accepted += 1 }
        }
        #expect(accepted > 100, "some edits still make a snapshot (a digit, a space)")
    }

    // MARK: - Helpers

    /// `Snapshot(json:)` over bytes.
    static func decoded(_ bytes: [UInt8]) -> Result<Snapshot, SnapshotDecodingError> {
        Result { () throws(SnapshotDecodingError) in try Snapshot(json: bytes) }
    }

    /// `Snapshot(json:)` as it was before `SnapshotReader`: the whole tree, then
    /// `init(jsonValue:)`.
    static func treeDecoded(_ bytes: [UInt8]) -> Result<Snapshot, SnapshotDecodingError> {
        Result { () throws(SnapshotDecodingError) in
            let value: JSONValue
            do throws(JSONParseError) {
                value = try JSONValue(parsing: bytes)
            } catch {
                throw SnapshotDecodingError(path: "", reason: error.description)
            }
            return try Snapshot(jsonValue: value)
        }
    }

    /// A lose_weight plan with every nullable field but `settings_updated_at` filled, as
    /// jsonb prints it.
    static let fixedText: String = {
        var snapshot = snapshots.first { $0.inputs.primaryGoal == .loseWeight }!
        snapshot.rulesVersion = "2026.1"
        snapshot.planDate = LocalDate(year: 2026, month: 3, day: 2)
        snapshot.flags = []
        snapshot.reasons = [.created]
        snapshot.inputs.age = 32
        snapshot.inputs.gender = .male
        snapshot.inputs.heightTenthsCm = 1780
        snapshot.inputs.timezone = "UTC"
        snapshot.inputs.settingsUpdatedAt = nil
        snapshot.inputs.dietaryPreferences = ["vegan"]
        snapshot.phase = .init(phase: .deficit, cycleStartDate: snapshot.planDate, phaseDay: 0,
                               nextPhaseSwitchDate: snapshot.planDate.adding(days: 14))
        snapshot.projection = .init(weeklyRateThousandthsKg: 227, estimatedWeeks: 30,
                                    projectedDate: snapshot.planDate.adding(days: 210), recommendedTargetDate: nil)
        return jsonbStyle(try! JSONValue(parsing: snapshot.jsonBytes()))
    }()

    /// The path of every key of every object, e.g. `["inputs", "age"]`.
    static func keyPaths(_ value: JSONValue, under prefix: [String] = []) -> [[String]] {
        guard case .object(let members) = value else { return [] }
        return members.flatMap { [prefix + [$0.key]] + keyPaths($0.value, under: prefix + [$0.key]) }
    }

    /// `value` with the member at `path` given `replacement` (nil: removed).
    static func replacing(_ path: [String], in value: JSONValue, with replacement: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(let members) = value else { return value }
        return .object(members.compactMap { member in
            guard member.key == key else { return member }
            if path.count > 1 { return JSONMember(key: key, value: replacing(Array(path.dropFirst()), in: member.value, with: replacement)) }
            return replacement.map { JSONMember(key: key, value: $0) }
        })
    }
}

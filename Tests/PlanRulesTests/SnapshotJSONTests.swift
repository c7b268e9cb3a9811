import Foundation
import PlanJSON
import Testing
@testable import PlanRules

/// One line of `Fixtures/examples.jsonl` (plan-rules.md's worked examples), parsed with
/// the JSONValue parser so numbers stay exact.
struct SpecExample: Sendable, CustomTestStringConvertible {
    let line: Int
    let value: JSONValue

    var title: String { value["title"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "" }
    var testDescription: String { "line \(line): \(title)" }

    func snapshot(_ key: String) throws -> Snapshot? {
        let object = try #require(value[key])
        if case .null = object { return nil }
        return try Snapshot(jsonValue: object)
    }

    static let all: [SpecExample] = {
        guard let url = Bundle.module.url(forResource: "examples", withExtension: "jsonl", subdirectory: "Fixtures"),
              let data = try? Data(contentsOf: url)
        else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { index, line in
            (try? JSONValue(parsing: line)).map { SpecExample(line: index + 1, value: $0) }
        }
    }()
}

@Test func theFixtureHasFourteenExamples() {
    #expect(SpecExample.all.count == 14)
}

/// The fixture's `expected` objects are written in section 6's key order with section
/// 6's number forms, so re-serializing the parsed object compactly gives exactly the
/// bytes the encoder must produce.
@Test(arguments: SpecExample.all)
func encodingMatchesTheFixtureByteForByte(example: SpecExample) throws {
    let expected = try #require(example.value["expected"])
    let snapshot = try Snapshot(jsonValue: expected)
    #expect(snapshot.jsonString == expected.jsonString)
    if let previousValue = example.value["previous"], previousValue != .null {
        #expect(try Snapshot(jsonValue: previousValue).jsonString == previousValue.jsonString)
    }
}

@Test(arguments: SpecExample.all)
func encodeThenDecodeGivesTheSameSnapshot(example: SpecExample) throws {
    let snapshot = try #require(try example.snapshot("expected"))
    #expect(try Snapshot(json: snapshot.jsonBytes()) == snapshot)
}

/// PostgreSQL `jsonb` output: keys sorted by length then bytes, `", "` and `": "`
/// separators. The decoder must not care.
@Test(arguments: SpecExample.all)
func jsonbStyleTextDecodesToTheSameSnapshot(example: SpecExample) throws {
    let snapshot = try #require(try example.snapshot("expected"))
    let jsonbText = jsonbStyle(try JSONValue(parsing: snapshot.jsonBytes()))
    #expect(jsonbText.contains(": "))
    #expect(try Snapshot(json: Array(jsonbText.utf8)) == snapshot)
}

@Test func numbersUseTheFieldsPrecision() throws {
    var snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    snapshot.inputs.heightTenthsCm = 1780          // 178.0, not 178
    snapshot.inputs.weightReportedTenthsKg = 823   // 82.3
    snapshot.inputs.targetWeightTenthsKg = 5       // 0.5
    snapshot.projection.weeklyRateThousandthsKg = 250  // 0.25: trailing zero dropped, one kept
    let text = snapshot.jsonString
    #expect(text.contains("\"height_cm\":178.0,"))
    #expect(text.contains("\"weight_kg_reported\":82.3,"))
    #expect(text.contains("\"target_weight_kg\":0.5,"))
    #expect(text.contains("\"weekly_rate_kg\":0.25,"))
    snapshot.projection.weeklyRateThousandthsKg = 0
    #expect(snapshot.jsonString.contains("\"weekly_rate_kg\":0.0,"))
    snapshot.projection.weeklyRateThousandthsKg = 12
    #expect(snapshot.jsonString.contains("\"weekly_rate_kg\":0.012,"))
    snapshot.projection.weeklyRateThousandthsKg = 1500
    #expect(snapshot.jsonString.contains("\"weekly_rate_kg\":1.5,"))
}

@Test func nullsAreWrittenNotOmitted() throws {
    var snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    snapshot.inputs.targetWeightTenthsKg = nil
    snapshot.inputs.targetDate = nil
    snapshot.inputs.settingsUpdatedAt = nil
    snapshot.phase = .init(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil)
    let text = snapshot.jsonString
    for key in ["target_weight_kg", "target_date", "settings_updated_at", "cycle_start_date", "phase_day",
                "next_phase_switch_date", "recommended_target_date"] {
        #expect(text.contains("\"\(key)\":null"), "\(key)")
    }
    #expect(try Snapshot(json: snapshot.jsonBytes()) == snapshot)
}

@Test(arguments: [
    (Int64(1_763_719_200_123_456), "2025-11-21T10:00:00.123456Z"),  // 20413 days × 86400 + 10 h, + .123456
    (Int64(0), "1970-01-01T00:00:00.000000Z"),
    (Int64(-1), "1969-12-31T23:59:59.999999Z"),                     // floor, not truncation
])
func settingsUpdatedAtIsRFC3339UTCWithSixDigits(micros: Int64, text: String) throws {
    var snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    snapshot.inputs.settingsUpdatedAt = Instant(microsecondsSinceEpoch: micros)
    #expect(snapshot.jsonString.contains("\"settings_updated_at\":\"\(text)\""))
    #expect(try Snapshot(json: snapshot.jsonBytes()).inputs.settingsUpdatedAt == Instant(microsecondsSinceEpoch: micros))
}

@Test func infiniteUpdatedAtIsWrittenAsPostgreSQLWritesIt() throws {
    var snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    snapshot.inputs.settingsUpdatedAt = .distantFuture
    #expect(snapshot.jsonString.contains("\"settings_updated_at\":\"infinity\""))
    #expect(try Snapshot(json: snapshot.jsonBytes()) == snapshot)
    snapshot.inputs.settingsUpdatedAt = .distantPast
    #expect(snapshot.jsonString.contains("\"settings_updated_at\":\"-infinity\""))
    #expect(try Snapshot(json: snapshot.jsonBytes()) == snapshot)
}

@Test func stringsAreEscapedAndUnicodeKeptAsUTF8() throws {
    var snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    snapshot.inputs.dietaryPreferences = ["say \"hi\"", "back\\slash", "line\nbreak\ttab", "\u{01}bell", "végétarien 🌱"]
    snapshot.inputs.allergies = ["", "\u{7F}del", "\r\u{08}\u{0C}"]
    let text = snapshot.jsonString
    #expect(text.contains(#""dietary_preferences":["say \"hi\"","back\\slash","line\nbreak\ttab","\u0001bell","végétarien 🌱"]"#))
    #expect(text.contains("\"allergies\":[\"\",\"\u{7F}del\",\"\\r\\b\\f\"]"))
    #expect(try Snapshot(json: snapshot.jsonBytes()) == snapshot)
}

@Test func equalPlansGiveEqualBytes() throws {
    let first = try #require(try SpecExample.all.first?.snapshot("expected"))
    let copy = try Snapshot(json: Array(jsonbStyle(try JSONValue(parsing: first.jsonBytes())).utf8))
    #expect(copy.jsonBytes() == first.jsonBytes())
}

@Test func heightsWrittenWithoutADecimalOrWithAnExponentStillDecodeExactly() throws {
    let snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    // 178.0 written as 178 and as 1.78e2 is still 1780 tenths; 82.0 as 820e-1 is 820.
    let text = snapshot.jsonString
        .replacingOccurrences(of: "\"height_cm\":178.0", with: "\"height_cm\":1.78e2")
        .replacingOccurrences(of: "\"weight_kg_basis\":82.0", with: "\"weight_kg_basis\":820e-1")
    #expect(try Snapshot(json: Array(text.utf8)) == snapshot)
}

@Test(arguments: [
    ("\"height_cm\":178.0", "\"height_cm\":178.05", "inputs.height_cm", "at most 1 decimal"),
    ("\"age\":32", "\"age\":\"32\"", "inputs.age", "expected a number"),
    ("\"gender\":\"male\"", "\"gender\":\"Male\"", "inputs.gender", "unknown value \"Male\""),
    ("\"phase_day\":0,", "", "phase.phase_day", "missing"),
    ("\"plan_date\":\"2026-03-02\"", "\"plan_date\":\"2026-02-30\"", "plan_date", "YYYY-MM-DD"),
    ("\"bmr\":1778", "\"bmr\":null", "targets.bmr", "expected a number, found null"),
    ("\"settings_updated_at\":\"2026-03-01T09:00:00.000000Z\"", "\"settings_updated_at\":\"yesterday\"",
     "inputs.settings_updated_at", "RFC 3339"),
])
func decodingErrorsNameThePathAndTheProblem(original: String, replacement: String, path: String, reason: String) throws {
    let snapshot = try #require(try SpecExample.all.first?.snapshot("expected"))
    let text = snapshot.jsonString.replacingOccurrences(of: original, with: replacement)
    #expect(text != snapshot.jsonString)
    let error = try #require(throws: SnapshotDecodingError.self) { try Snapshot(json: Array(text.utf8)) }
    #expect(error.path == path)
    #expect(error.reason.contains(reason), "\(error)")
}

@Test func invalidJSONIsReportedWithItsOffset() throws {
    let error = try #require(throws: SnapshotDecodingError.self) { try Snapshot(json: Array("{\"a\":1,}".utf8)) }
    // `{"a":1,` is 7 bytes; the parser stops at offset 7 expecting a key.
    #expect(error.description.contains("byte 7"), "\(error)")
}

@Test func parserJoinsSurrogatePairsAndRejectsBadInput() throws {
    #expect(try JSONValue(parsing: #""\ud83c\udf89 \u00e9\/""#) == .string("🎉 é/"))
    for bad in [#""\ud83c""#, "[1,]", "01", "1.", "-", "\"a\u{01}\"", "{\"a\" 1}", "nul", "[1] x",
                String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)] {
        #expect(throws: JSONParseError.self, "\(bad.prefix(20))") { try JSONValue(parsing: bad) }
    }
    #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x22]) }  // truncated UTF-8
}

@Test(arguments: [
    ("82.3", 1, 823), ("82", 1, 820), ("0.25", 3, 250), ("-1.1", 1, -11), ("8.23e1", 1, 823),
    ("0.000", 1, 0), ("-0", 0, 0), ("1E+2", 0, 100), ("820e-1", 1, 820), ("100", 0, 100),
    ("82.30000000000000000000000000", 1, 823),   // trailing zeros beyond Int's 19 digits
])
func numbersScaleExactly(text: String, decimals: Int, expected: Int) throws {
    guard case .number(let number) = try JSONValue(parsing: text) else {
        Issue.record("not a number")
        return
    }
    #expect(number.scaled(decimals: decimals) == expected)
}

@Test(arguments: [("82.25", 1), ("0.5", 0), ("1e400", 0), ("1e-400", 1), ("99999999999999999999", 0)])
func numbersThatDoNotFitTheScaleAreRejected(text: String, decimals: Int) throws {
    guard case .number(let number) = try JSONValue(parsing: text) else {
        Issue.record("not a number")
        return
    }
    #expect(number.scaled(decimals: decimals) == nil)
}

/// Writes `value` the way PostgreSQL prints a `jsonb`: object keys ordered by length,
/// then bytewise; `", "` between items and `": "` after keys.
func jsonbStyle(_ value: JSONValue) -> String {
    switch value {
    case .object(let members):
        let sorted = members.sorted {
            $0.key.utf8.count != $1.key.utf8.count ? $0.key.utf8.count < $1.key.utf8.count
                : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
        return "{" + sorted.map { JSONValue.string($0.key).jsonString + ": " + jsonbStyle($0.value) }
            .joined(separator: ", ") + "}"
    case .array(let elements):
        return "[" + elements.map(jsonbStyle).joined(separator: ", ") + "]"
    default:
        return value.jsonString
    }
}

/// A snapshot's fields share one box between copies (`Snapshot.storage`): changing a copy
/// leaves the original as it was, equal snapshots read apart compare and hash equal, and a
/// copy changed back is equal again.
@Test(arguments: SpecExample.all)
func aSnapshotCopyChangesAlone(example: SpecExample) throws {
    let original = try #require(try example.snapshot("expected"))
    let (calories, flags, timezone) = (original.targets.calories, original.flags, original.inputs.timezone)
    var copy = original
    copy.targets.calories += 1
    copy.flags.append(.calorieFloorApplied)
    copy.inputs.timezone = "Pacific/Chatham"
    #expect(original.targets.calories == calories)
    #expect(original.flags == flags)
    #expect(original.inputs.timezone == timezone)
    #expect(copy.targets.calories == calories + 1)
    #expect(copy.inputs.timezone == "Pacific/Chatham")
    #expect(copy != original)

    let readAgain = try #require(try example.snapshot("expected"))
    #expect(readAgain == original)
    #expect(readAgain.hashValue == original.hashValue)
    copy = readAgain
    copy.targets.calories = calories + 1
    copy.targets.calories = calories
    #expect(copy == original)
}

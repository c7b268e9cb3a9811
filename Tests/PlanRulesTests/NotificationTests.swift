import PlanJSON
import Testing
@testable import PlanRules
import ZoneFiles

private let zones = Result { try ZoneDatabase.loadSystem() }

private func zone(_ name: String) throws -> Zone {
    try #require(try zones.get().zone(named: name))
}

private func instant(_ text: String) throws -> Instant {
    try #require(Instant(rfc3339: text))
}

private func string(_ value: JSONValue?) throws -> String {
    guard case .string(let text) = value else {
        Issue.record("expected a string, found \(String(describing: value))")
        return ""
    }
    return text
}

/// The fixture's notification objects carry the example's `created_at`, so with it the
/// whole line — `deliver_after` included (08:00 Berlin CET = 07:00Z; Etc/GMT-14's 08:00
/// is 18:00Z the day before, earlier than created_at, so created_at) — must match.
@Test(arguments: SpecExample.all)
func notificationMatchesTheFixture(example: SpecExample) throws {
    let next = try #require(try example.snapshot("expected"))
    let fixture = try #require(example.value["notification"])
    guard case .number(let userIDText) = example.value["row"]?["user_id"] else {
        Issue.record("row.user_id is not a number")
        return
    }
    let userID = try #require(userIDText.scaled(decimals: 0))
    let createdAt = try instant(string(fixture["created_at"] ?? .string("2026-03-02T00:15:00.000000Z")))
    let notification = planNotification(for: HistoryEntry(snapshot: next, previous: try example.snapshot("previous")),
                                        userID: Int64(userID), sequence: 0, createdAt: createdAt,
                                        zone: try zone(next.inputs.timezone))
    if fixture == .null {
        #expect(notification == nil)
        return
    }
    let made = try #require(notification)
    #expect(made.id == (try string(fixture["id"])))
    #expect(made.type.rawValue == (try string(fixture["type"])))
    #expect(made.title == (try string(fixture["title"])))
    #expect(made.body == (try string(fixture["body"])))
    #expect(made.jsonString == fixture.jsonString)
}

private func example(_ line: Int) throws -> (previous: Snapshot, next: Snapshot) {
    let example = try #require(SpecExample.all.first { $0.line == line })
    return (try #require(try example.snapshot("previous")), try #require(try example.snapshot("expected")))
}

@Test func aReportedWeightOnlyChangeSendsNothing() throws {
    let (previous, next) = try example(11)  // 82.0 → 82.9 kg reported, basis and targets unchanged
    #expect(planDiff(from: previous, to: next).contains { $0.path == .weightKgReported })
    #expect(planNotification(for: HistoryEntry(snapshot: next, previous: previous), userID: 1, sequence: 0,
                             createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")) == nil)
}

@Test func aPreferencesOnlyChangeSendsNothing() throws {
    let (previous, _) = try example(11)
    var next = previous
    next.inputs.dietaryPreferences = ["vegan"]
    next.inputs.allergies = ["peanuts"]
    next.inputs.mealsPerDay = 5
    #expect(planChanged(from: previous, to: next))
    #expect(planNotification(for: HistoryEntry(snapshot: next, previous: previous), userID: 1, sequence: 0,
                             createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")) == nil)
}

@Test func theDeficitPhaseHasItsOwnCopy() throws {
    let (deficit, maintenance) = try example(13)  // day 14: 2,255 → 2,755
    var back = deficit
    back.planDate = deficit.planDate.adding(days: 28)
    let notification = try #require(planNotification(for: HistoryEntry(snapshot: back, previous: maintenance),
                                                     userID: 7, sequence: 0,
                                                     createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")))
    #expect(notification.type == .phaseSwitch)
    #expect(notification.id == "7:2026-03-30:phase_switch:0")  // 2026-03-02 + 28 days
    #expect(notification.title == "Deficit phase")
    #expect(notification.body == "Your deficit phase starts today: 2,255 cal.")
    #expect(notification.jsonString.contains(
        #""data":{"calories":{"before":2755,"after":2255,"delta":-500},"phase":{"before":"maintenance","after":"deficit"}}"#))
}

@Test func whenTheFloorKeepsCaloriesEqualTheMaintenanceCopyNamesThePhase() throws {
    // Example 2: the 1200 floor; in maintenance the calories stay 1,200.
    let first = try #require(try SpecExample.all.first { $0.line == 2 }?.snapshot("expected"))
    var maintenance = first
    maintenance.phase.phase = .maintenance
    let notification = try #require(planNotification(for: HistoryEntry(snapshot: maintenance, previous: first),
                                                     userID: 1, sequence: 0,
                                                     createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")))
    #expect(notification.type == .phaseSwitch)
    #expect(notification.title == "Maintenance phase")
    #expect(notification.body == "Your maintenance phase starts today: 1,200 cal.")
    #expect(notification.data == .changes([FieldChange(path: .phase, before: .string("deficit"),
                                                             after: .string("maintenance"))]))
}

@Test func aRiseIsWrittenWithAPlusSign() throws {
    let (previous, next) = try example(12)   // 2,255 → 2,238: reverse it for a rise of +17
    let notification = try #require(planNotification(for: HistoryEntry(snapshot: previous, previous: next),
                                                     userID: 1, sequence: 0,
                                                     createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")))
    #expect(notification.body == "Your new targets start today: Calories 2,238 → 2,255 (+17), "
        + "Protein 162 g → 164 g (+2 g), Water 2,832 ml → 2,870 ml (+38 ml).")
}

@Test func leavingTheCycleIsATargetsUpdateWithThePhaseInItsData() throws {
    let (previous, _) = try example(13)
    var next = previous
    next.inputs.primaryGoal = .maintainWeight
    next.phase = .init(phase: .none, cycleStartDate: nil, phaseDay: nil, nextPhaseSwitchDate: nil)
    next.targets.calories = 2755
    let notification = try #require(planNotification(for: HistoryEntry(snapshot: next, previous: previous),
                                                     userID: 1, sequence: 0,
                                                     createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")))
    #expect(notification.type == .targetsUpdated)
    #expect(notification.data == .changes([
        FieldChange(path: .calories, before: .int(2255), after: .int(2755)),
        FieldChange(path: .phase, before: .string("deficit"), after: .string("none")),
    ]))
}

@Test func deliverAfterIsEightInTheMorningLocalOrCreatedAtIfLater() throws {
    let (_, next) = try example(12)   // plan date 2026-03-05, Europe/Berlin (CET, +01:00)
    let berlin = try zone("Europe/Berlin")
    let early = try instant("2026-03-04T23:15:00Z")   // 00:15 local
    let late = try instant("2026-03-05T09:30:00Z")    // 10:30 local
    let first = try #require(planNotification(for: HistoryEntry(snapshot: next, previous: nil),
                                              userID: 1, sequence: 0, createdAt: early, zone: berlin))
    #expect(first.deliverAfter == (try instant("2026-03-05T07:00:00Z")))  // 08:00 − 1 h
    let second = try #require(planNotification(for: HistoryEntry(snapshot: next, previous: nil),
                                               userID: 1, sequence: 0, createdAt: late, zone: berlin))
    #expect(second.deliverAfter == late)
}

@Test func theIdCarriesTheNumberOfEarlierRowsOnThePlanDate() throws {
    let (_, next) = try example(12)
    let rerun = try #require(planNotification(for: HistoryEntry(snapshot: next, previous: nil), userID: 42, sequence: 1,
                                              createdAt: Instant(secondsSinceEpoch: 0), zone: try zone("UTC")))
    #expect(rerun.id == "42:2026-03-05:plan_created:1")
}

@Test func aJSONLineIsOneLineEndingInANewline() throws {
    let (previous, next) = try example(13)
    let notification = try #require(planNotification(for: HistoryEntry(snapshot: next, previous: previous),
                                                     userID: 9_007_199_254_740_993,
                                                     sequence: 0, createdAt: Instant(secondsSinceEpoch: 0),
                                                     zone: try zone("UTC")))
    let line = notification.jsonLine()
    #expect(line.last == UInt8(ascii: "\n"))
    #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
    #expect(notification.jsonString.hasPrefix(#"{"id":"9007199254740993:2026-03-16:phase_switch:0","type":"phase_switch","user_id":9007199254740993,"#))
    #expect(notification.jsonString.hasSuffix(#","schema_version":1}"#))
    #expect(try JSONValue(parsing: line.dropLast())["body"] == .string("Your calories are increasing to 2,755 today! 🎉"))
}

/// The notification id, written byte by byte, reads as section 7 spells it for any user
/// id and sequence, and for a date without four digits.
@Test(arguments: [(Int64(7), 0), (-42, 3), (.max, 12), (.min, 1_000)])
func notificationIDsSpellUserDateTypeAndSequence(userID: Int64, sequence: Int) {
    let date = LocalDate(year: 2026, month: 3, day: 5)
    for type in NotificationType.allCases {
        #expect(notificationID(userID: userID, planDate: date, type: type, sequence: sequence)
                == "\(userID):2026-03-05:\(type.rawValue):\(sequence)")
    }
    let farFuture = LocalDate(year: 10_000, month: 1, day: 1)
    #expect(notificationID(userID: userID, planDate: farFuture, type: .planCreated, sequence: sequence)
            == "\(userID):\(farFuture):plan_created:\(sequence)")
}

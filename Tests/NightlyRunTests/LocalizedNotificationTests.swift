import DemoData
import Foundation
import LineOutput
import Logging
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing
import ZoneFiles

/// Section 7.1 against a real database: the optional `locale` and `unit_system` columns
/// are read when the table has them; without them, or with them NULL, every line is byte
/// for byte what the job wrote before locales existed (`Fixtures/notifications-before-
/// locales.jsonl`, made by the binary of the commit before them on this very scenario).
@Suite struct LocalizedNotificationTests {
    static let firstRun = Instant(rfc3339: "2026-03-01T00:00:00Z")!
    static let secondRun = Instant(rfc3339: "2026-03-15T12:00:00Z")!

    /// The golden scenario: 400 demo users written 1–30 days before the first run; a run
    /// then; some users' weight changed on 2026-03-08; a run 14½ days after the first.
    /// `prepare` runs after seeding. Returns the notification lines of both runs.
    private func scenario(withPresentationColumns: Bool, prepare: (PostgresConnection) throws -> Void = { _ in })
        throws -> (lines: [String], summaries: [RunSummary]) {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let reference = withPresentationColumns
                ? Migration.reference : Migration.reference.filter { $0.name == "reference/0000_user_settings" }
            try Migrator(connection: connection).apply(reference + Migration.planRegen)
            try DemoUsers.insert(count: 400, writtenBefore: Self.firstRun, into: connection)
            try prepare(connection)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("locales-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: file) }
            let conninfo = database.conninfo
            let runner = NightlyRunner(
                stores: .postgres(connect: { try PostgresConnection(conninfo: conninfo) }), zones: try ZoneDatabase.loadSystem(),
                logger: Logger(label: "locale-tests") { _ in SwiftLogNoOpLogHandler() },
                notifications: try NotificationSink.appending(toFile: file.path),
                report: try LineWriter.appending(toFile: "/dev/null"))
            var summaries = [try runner.run(RunOptions(asOf: Self.firstRun))]
            try connection.execute(
                """
                UPDATE user_settings SET current_weight_kg = current_weight_kg - 1.5,
                       updated_at = '2026-03-08T00:00:00Z' WHERE user_id % 7 = 0
                """, purpose: "the app changing some users' weight")
            summaries.append(try runner.run(RunOptions(asOf: Self.secondRun)))
            let text = try String(contentsOf: file, encoding: .utf8)
            return (text.split(separator: "\n").map(String.init), summaries)
        }
    }

    private func golden() throws -> [String] {
        let url = try #require(Bundle.module.url(forResource: "notifications-before-locales", withExtension: "jsonl",
                                                 subdirectory: "Fixtures"))
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func withoutTheColumnsOrWithThemNullTheLinesAreTheGoldenOnesByteForByte() throws {
        let golden = try golden()
        #expect(golden.count == 574)
        if let check = try PublishedSchema.notificationLine.validate(golden, what: "the lines before locales") {
            #expect(check.isValid, "\(check)")
        }
        #expect(try scenario(withPresentationColumns: false).lines == golden)
        let allNull = try scenario(withPresentationColumns: true) { connection in
            try connection.execute("UPDATE user_settings SET locale = NULL, unit_system = NULL",
                                   purpose: "no user has a locale")
        }
        #expect(allNull.lines == golden)
        // A unit system without a locale changes nothing either (7.1: only a locale does).
        let unitsOnly = try scenario(withPresentationColumns: true) { connection in
            try connection.execute("UPDATE user_settings SET locale = NULL, unit_system = 'imperial'",
                                   purpose: "units but no locale")
        }
        #expect(unitsOnly.lines == golden)
    }

    @Test func demoUsersGetTheirLanguageNumbersAndUnits() throws {
        let (lines, summaries) = try scenario(withPresentationColumns: true)
        let golden = Dictionary(uniqueKeysWithValues: try golden().map { (try Self.field("id", of: $0), $0) })
        var byLocale: [String: Int] = [:]
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let userID = try #require(object["user_id"] as? Int)
            let id = try #require(object["id"] as? String)
            let expectedLocale = ["de-DE", "es-ES", "fr-FR", "en-US", "de-DE", "en-US"]
            guard userID % 12 < 6 else {
                // Half the demo users have no locale: today's line exactly.
                #expect(golden[id] == line, "user \(userID)")
                continue
            }
            let locale = try #require(object["locale"] as? String)
            #expect(locale == expectedLocale[userID % 12], "user \(userID)")
            let units = try #require(object["units"] as? String)
            let explicit = [nil, "metric", "imperial", "imperial"][(userID / 12) % 4]
            let expectedUnits = userID % 211 == 7 || explicit == nil
                ? (userID % 12 == 3 ? "imperial" : "metric") : explicit!
            #expect(units == expectedUnits, "user \(userID)")
            byLocale[locale, default: 0] += 1
            let body = try #require(object["body"] as? String)
            let table = try #require(CopyLocale(rawValue: locale)).table
            let titles = [CopyKey.planCreatedTitle, .toMaintenanceTitle, .toDeficitTitle, .targetsUpdatedTitle]
                .map { table[$0] }
            #expect(titles.contains(object["title"] as? String), "user \(userID): \(object["title"] ?? "")")
            #expect(units == "imperial" ? body.contains("fl oz") || !body.contains(" ml") : !body.contains("fl oz"),
                    "user \(userID): \(body)")
            // The data stays metric, the id and delivery as they were.
            let goldenLine = try #require(golden[id])
            let goldenObject = try #require(try JSONSerialization.jsonObject(with: Data(goldenLine.utf8))
                as? [String: Any])
            #expect(NSDictionary(dictionary: object["data"] as? [String: Any] ?? [:])
                    .isEqual(to: goldenObject["data"] as? [String: Any] ?? [:]), "user \(userID)")
            #expect(object["deliver_after"] as? String == goldenObject["deliver_after"] as? String)
        }
        #expect(Set(byLocale.keys) == ["de-DE", "es-ES", "fr-FR", "en-US"])
        #expect(lines.count == 574)
        // Localized lines (with `locale` and `units`) against the published schema.
        if let check = try PublishedSchema.notificationLine.validate(lines, what: "the localized demo lines") {
            #expect(check.isValid, "\(check)")
        }
        // Demo users whose unit_system is 'stones': a warning and a count, never a rejection.
        #expect(summaries.map(\.counts.unknownUnitSystems).reduce(0, +) > 0)
        #expect(summaries.map(\.counts.rejected) == [9, 1])
    }

    @Test func aLocaleOnlyChangeWritesNoPlanAndSendsNothing() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 5, updatedAt: t0.adding(minutes: -5)))
            try driver.run(at: t0)
            #expect(try driver.history(of: 5).count == 1)
            try driver.update(5, column: "locale", to: "de-DE", at: t0.adding(minutes: 120))
            try driver.update(5, column: "unit_system", to: "imperial", at: t0.adding(minutes: 180))
            // The next days' runs, past the user's midnight: the settings changed, the plan did not.
            let next = try driver.run(at: t0.adding(minutes: 24 * 60))
            try driver.run(at: t0.adding(minutes: 48 * 60))
            #expect(next.counts.unchanged == 1)
            #expect(try driver.history(of: 5).count == 1)
            #expect(try driver.emittedNotifications().count == 1)
        }
    }

    private static func field(_ name: String, of line: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(object?[name] as? String)
    }
}

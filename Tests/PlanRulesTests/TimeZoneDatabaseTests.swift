import Foundation
import Testing
@testable import PlanRules
import ZoneFiles

@Suite struct TimeZoneDatabaseTests {
    /// plan-rules.md section 1: a known zone is a `Z name` or `L target name` of tzdata.zi,
    /// case-sensitive, whatever a library would accept.
    @Test(arguments: [
        ("Europe/Berlin", true), ("US/Eastern", true), ("Etc/GMT+12", true), ("EST", true),
        ("UTC", true), ("Asia/Kathmandu", true), ("Asia/Katmandu", true),
        ("GMT+5", false), ("UTC+1", false), ("localtime", false), ("posixrules", false),
        ("right/UTC", false), ("posix/UTC", false), ("europe/berlin", false), ("EUROPE/BERLIN", false),
        ("", false), (" Europe/Berlin", false), ("Europe/Berlin ", false), ("Europe//Berlin", false),
        ("zone.tab", false), ("tzdata.zi", false), ("Europe", false),
    ])
    func knownZoneRule(name: String, known: Bool) throws {
        let zones = try #require(TimeTestFixtures.database)
        #expect(zones.isKnown(name) == known)
        #expect((zones.zone(named: name) != nil) == known)
    }

    /// Strings a client might send to break out of /usr/share/zoneinfo or the parser are
    /// simply unknown.
    @Test(arguments: [
        "../../etc/passwd", "/etc/passwd", "Europe/../../../etc/passwd", "./UTC", "Europe/Berlin/..",
        "'; DROP TABLE x; --", "Europe/Berlin\u{0}", "\u{0}", "UTC\u{0}../../etc/passwd",
        String(repeating: "A", count: 10_000), String(repeating: "../", count: 3_000) + "etc/passwd",
        "Europe/Berl\u{0131}n", "Ｅｕｒｏｐｅ/Berlin", "Europe/Berlin\n", "%2e%2e/etc/passwd",
    ])
    func hostileNamesAreUnknown(name: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        #expect(!zones.isKnown(name))
        #expect(zones.zone(named: name) == nil)
    }

    /// The release named on `tzdata.zi`'s first line (`# version 2026f` since Debian's
    /// tzdata 2026f-0+deb12u1; 2025b before), read here on its own.
    @Test func versionComesFromTzdataZi() throws {
        let zones = try #require(TimeTestFixtures.database)
        let text = try String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8)
        let firstLine = try #require(text.split(separator: "\n").first)
        #expect(firstLine.hasPrefix("# version "))
        #expect(zones.version == String(firstLine.dropFirst("# version ".count)))
        #expect(zones.version.wholeMatch(of: /[0-9]{4}[a-z]/) != nil, "\(zones.version)")
    }

    /// All 598 names of tzdata.zi (447 `Z` lines and 151 `L` lines) load.
    @Test func everyKnownNameLoads() throws {
        let zones = try #require(TimeTestFixtures.database)
        let names = try TimeTestFixtures.knownNames()
        #expect(Set(names).count == 598)
        #expect(names.allSatisfy { zones.zone(named: $0) != nil })
    }

    /// The zone keeps the name the row wrote, links included.
    @Test func zoneKeepsTheRowsName() throws {
        let zones = try #require(TimeTestFixtures.database)
        #expect(zones.zone(named: "US/Eastern")?.name == "US/Eastern")
        #expect(zones.zone(named: "UTC")?.name == "UTC")
    }

    /// Many threads asking at once get one shared `Zone` per name.
    @Test func concurrentLookupsShareOneZonePerName() async throws {
        let zones = try ZoneDatabase.loadSystem()
        let names = ["Europe/Berlin", "America/New_York", "Asia/Kathmandu", "UTC"]
        let identities = await withTaskGroup(of: (String, ObjectIdentifier?).self) { group in
            for round in 0..<200 {
                let name = names[round % names.count]
                group.addTask { (name, zones.zone(named: name).map(ObjectIdentifier.init)) }
            }
            var seen: [String: Set<ObjectIdentifier?>] = [:]
            for await (name, identity) in group { seen[name, default: []].insert(identity) }
            return seen
        }
        #expect(identities.count == names.count)
        #expect(identities.values.allSatisfy { $0.count == 1 && !$0.contains(nil) })
    }

    /// Only names in the known set become paths: a database whose set lacks Europe/Berlin
    /// does not find the file that is right there.
    @Test func namesOutsideTheKnownSetAreNeverLookedUp() {
        let zones = TimeTestFixtures.zones(knownNames: ["UTC"])
        #expect(zones.zone(named: "UTC") != nil)
        #expect(zones.zone(named: "Europe/Berlin") == nil)
    }

    @Test func missingTzdataZiThrows() {
        #expect(throws: ZoneDatabaseError.self) {
            try ZoneDatabase.loadSystem(path: "/nonexistent/tzdata.zi")
        }
    }

    /// A known name without a TZif file is a broken installation: loading fails and says
    /// which names, rather than valid rows being rejected as "Unknown time zone".
    @Test func knownNameWithoutZoneFileFailsTheLoad() throws {
        let directory = try temporaryZoneDirectory(tzdataZi: "# version 2099z\nZ Test/Real 1 - X\nL Test/Real Test/Alias\nZ Test/Missing 0 - Y\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try copyZoneFile("Europe/Berlin", to: directory + "/Test/Real")
        try copyZoneFile("Europe/Berlin", to: directory + "/Test/Alias")
        let error = #expect(throws: ZoneDatabaseError.self) {
            try ZoneDatabase.loadSystem(path: directory + "/tzdata.zi")
        }
        #expect(error?.reason.hasSuffix("no TZif file for known zones: Test/Missing") == true)
    }

    /// `loadSystem(path:)` reads zone files beside the tzdata.zi it is given.
    @Test func zoneFilesComeFromTheTzdataZiDirectory() throws {
        let directory = try temporaryZoneDirectory(tzdataZi: "# version 2099z\nZ Test/Real 1 - X\nL Test/Real Test/Alias\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try copyZoneFile("Asia/Kathmandu", to: directory + "/Test/Real")
        try copyZoneFile("Asia/Kathmandu", to: directory + "/Test/Alias")
        let zones = try ZoneDatabase.loadSystem(path: directory + "/tzdata.zi")
        #expect(zones.version == "2099z")
        let zone = try #require(zones.zone(named: "Test/Alias"))
        // Kathmandu is +05:45 = 20 700 s.
        #expect(zone.utcOffsetSeconds(at: Instant(secondsSinceEpoch: TimeTestFixtures.utcSeconds(year: 2026))) == 20_700)
        #expect(!zones.isKnown("Asia/Kathmandu"))
    }

    /// The names are the second field of `Z` lines and the third of `L` lines, fields split
    /// at runs of spaces; other lines (`R` rules, `Zone`, comments, a short line) name
    /// nothing, and the last line needs no newline.
    @Test func tzdataZiLinesThatNameZones() throws {
        let source = "# version 2099z\n# Z Test/Comment\nR Test/Rule 1 - X\nZone Test/Long 0\nL Test/Short\n"
            + "Z  Test/Spaced  1 - X\n  Z Test/Indented 0 - Y\nLx Test/Real Test/Other\nZ Test/Real 1 - X\n\nL Test/Real Test/Alias"
        let directory = try temporaryZoneDirectory(tzdataZi: source)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["Test/Spaced", "Test/Indented", "Test/Real", "Test/Alias"] {
            try copyZoneFile("Europe/Berlin", to: directory + "/" + name)
        }
        let zones = try ZoneDatabase.loadSystem(path: directory + "/tzdata.zi")
        #expect(zones.version == "2099z")
        for name in ["Test/Spaced", "Test/Indented", "Test/Real", "Test/Alias"] {
            #expect(zones.isKnown(name) && zones.zone(named: name) != nil, "\(name)")
        }
        for name in ["Test/Comment", "Test/Rule", "Test/Long", "Test/Short", "Test/Other", "Test/Real Test/Alias", ""] {
            #expect(!zones.isKnown(name), "\(name)")
        }
    }

    /// A file that passes the startup check but is corrupt gives nil, and says why.
    @Test func corruptZoneFileIsReported() throws {
        let directory = try temporaryZoneDirectory(tzdataZi: "Z Test/Corrupt 0 - X\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let berlin = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        try Data(berlin.prefix(100)).write(to: URL(fileURLWithPath: directory + "/Test/Corrupt"))
        let zones = try ZoneDatabase.loadSystem(path: directory + "/tzdata.zi")
        #expect(zones.zone(named: "Test/Corrupt") == nil)
        let error = #expect(throws: ZoneDatabaseError.self) { try ZoneDatabase.loadZoneFile("Test/Corrupt", directory: directory) }
        #expect(error?.reason == "TZif file is truncated")
    }

    private func temporaryZoneDirectory(tzdataZi: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("zones-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/Test", withIntermediateDirectories: true)
        try tzdataZi.write(toFile: directory + "/tzdata.zi", atomically: true, encoding: .utf8)
        return directory
    }

    private func copyZoneFile(_ name: String, to path: String) throws {
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/" + name, toPath: path)
    }
}

/// Shared by the time tests.
enum TimeTestFixtures {
    /// One system database for all time tests (reading `tzdata.zi` once).
    static let database: ZoneDatabase? = try? ZoneDatabase.loadSystem()

    /// A database that knows exactly `names`, with the system's zones of those names.
    static func zones(knownNames names: Set<String>) -> ZoneDatabase {
        ZoneDatabase(version: "test", zones: names.compactMap { database?.zone(named: $0) }, knownNames: names)
    }

    /// Zones with something unusual, plus the common ones; every offset test runs over all.
    static let offbeatZones = [
        "Asia/Kathmandu",        // +05:45
        "Pacific/Chatham",       // +12:45 / +13:45, DST at 02:45 local
        "Pacific/Kiritimati",    // +14, skipped 1994-12-31
        "Etc/GMT+12",            // −12, POSIX sign inverted in the name
        "Etc/GMT-14",            // +14
        "Pacific/Pago_Pago",     // −11
        "Australia/Lord_Howe",   // 30-minute DST
        "Australia/Eucla",       // +08:45
        "America/Santiago",      // DST starts at 24:00 Saturday, skipping midnight
        "America/Havana",        // DST at 00:00, skipping midnight
        "America/St_Johns",      // −03:30; 2010-11-07 fall-back at 00:01
        "America/Asuncion",
        "America/Sao_Paulo",     // DST abolished in 2019
        "America/Caracas",       // −04:30 from 2007 to 2016
        "America/Scoresbysund",  // rule time −1 h (M3.5.0/-1)
        "America/Nuuk",
        "America/Miquelon",
        "America/Mexico_City",
        "Pacific/Apia",          // skipped 2011-12-30
        "Pacific/Easter",
        "Pacific/Norfolk",
        "Pacific/Auckland",
        "Africa/Casablanca",     // Ramadan DST listed out to 2087
        "Africa/Cairo",          // M4.5.5/0, M10.5.4/24
        "Asia/Tehran",           // +03:30
        "Asia/Jerusalem",        // M3.4.4/26
        "Asia/Gaza",
        "Asia/Hebron",           // M3.4.4/50
        "Asia/Beirut",           // DST at 00:00
        "Asia/Kolkata",          // +05:30
        "Asia/Tokyo",
        "Asia/Shanghai",
        "Europe/Dublin",         // negative DST: IST-1GMT0
        "Europe/Berlin",
        "Europe/London",
        "Europe/Moscow",
        "Europe/Chisinau",
        "Atlantic/Azores",       // DST at 00:00 UTC
        "Antarctica/Troll",      // +00 / +02 DST
        "America/New_York",
        "US/Eastern",            // a link
        "America/Chicago",
        "America/Denver",
        "America/Phoenix",
        "America/Los_Angeles",
        "America/Anchorage",
        "Pacific/Honolulu",
        "Australia/Sydney",
        "Australia/Adelaide",    // +09:30 / +10:30
        "UTC",
        "EST",
    ]

    /// UTC seconds since the epoch of a UTC date and time.
    static func utcSeconds(year: Int, month: Int = 1, day: Int = 1, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        Int64(LocalDate(year: year, month: month, day: day).daysSinceEpoch) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The `Z` and `L` names of the system's tzdata.zi, read independently of `ZoneDatabase`.
    static func knownNames() throws -> [String] {
        let text = try String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            if parts.first == "Z", parts.count > 1 { return String(parts[1]) }
            if parts.first == "L", parts.count > 2 { return String(parts[2]) }
            return nil
        }
    }
}

import Foundation
import Testing
@testable import PlanRules

/// A second, independent reading of the system's zone files, for the instants where
/// Foundation cannot be the judge.
///
/// Foundation on Linux answers from ICU's own copy of the tz data (2025b in this
/// toolchain), not from the system's files, which are the contract (plan-rules.md
/// section 1). While both are the same release every disagreement with Foundation is a
/// bug of ours. Once the system's tzdata is newer (apt brought Debian's 2026f to these
/// machines on 2026-11-25), the zones changed since Foundation's release differ from it
/// on purpose (America/Havana, Africa/Casablanca and Europe/Chisinau among the offbeat
/// zones of these tests, and history such as Asia/Tehran's in 1979). There, Python's
/// `zoneinfo`, which reads the same system files with code of its own, settles it: a
/// disagreement with Foundation counts only where Python disagrees with us too.
enum SystemZoneOracle {
    /// One instant where Foundation's offset differs from ours.
    struct Mismatch: CustomStringConvertible {
        var zone: String
        var seconds: Int64
        var ours: Int
        var foundation: Int
        var description: String {
            "\(Instant(secondsSinceEpoch: seconds).rfc3339): Foundation \(foundation), ours \(ours)"
        }
    }

    /// Foundation's data is another release than the system's (ICU's 2025b against
    /// Debian's 2026f).
    static var foundationDataDiffers: Bool {
        TimeZone.timeZoneDataVersion != TimeTestFixtures.database?.version
    }

    /// The mismatches the system's own files do not explain: all of them while Foundation
    /// has the system's release; otherwise those where Python's offset is not ours either.
    static func unexplained(_ mismatches: [Mismatch]) throws -> [Mismatch] {
        guard foundationDataDiffers, !mismatches.isEmpty else { return mismatches }
        let python = try offsets(mismatches.map { ($0.zone, $0.seconds) })
        return zip(mismatches, python).filter { $0.ours != $1 }.map(\.0)
    }

    /// Python's UTC offset, in seconds, for each zone and instant (seconds since 1970),
    /// all in one `python3` process. Throws when python3 cannot answer: the check then
    /// fails rather than passing unchecked.
    static func offsets(_ queries: [(zone: String, seconds: Int64)]) throws -> [Int] {
        guard !queries.isEmpty else { return [] }
        let script = """
            import sys
            from datetime import datetime
            from zoneinfo import ZoneInfo
            zones = {}
            answers = []
            for line in sys.stdin:
                name, seconds = line.rstrip("\\n").split("\\t")
                zone = zones.get(name) or zones.setdefault(name, ZoneInfo(name))
                answers.append(str(int(datetime.fromtimestamp(int(seconds), zone).utcoffset().total_seconds())))
            print("\\n".join(answers))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        // The script reads all of its input before it writes: no deadlock on full pipes.
        input.fileHandleForWriting.write(Data(queries.map { "\($0.zone)\t\($0.seconds)\n" }.joined().utf8))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = String(decoding: answer, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        guard process.terminationStatus == 0, lines.count == queries.count else {
            throw OracleFailure(message: "python3 zoneinfo answered \(lines.count) of \(queries.count) queries "
                                + "(exit \(process.terminationStatus)): \(complaint.suffix(500))")
        }
        return lines
    }

    struct OracleFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

@Suite struct SystemZoneOracleTests {
    /// Fixed offsets, and both sides of a known change, answered by python3 itself.
    @Test func pythonReadsTheSystemFiles() throws {
        let offsets = try SystemZoneOracle.offsets([
            ("Asia/Kolkata", 0), ("Etc/GMT+12", 1_700_000_000), ("Asia/Kathmandu", 1_700_000_000),
            // Berlin: CET on 2026-03-29 00:59:59 UTC, CEST a second later.
            ("Europe/Berlin", 1_774_745_999), ("Europe/Berlin", 1_774_746_000),
        ])
        #expect(offsets == [19_800, -43_200, 20_700, 3_600, 7_200])
    }

    /// A wrong answer of ours stays a mismatch whichever the data versions are, and an
    /// unknown zone makes the check fail rather than pass.
    @Test func aWrongOffsetOfOursIsNeverExplained() throws {
        let wrong = SystemZoneOracle.Mismatch(zone: "Asia/Kolkata", seconds: 0, ours: 0, foundation: 19_800)
        #expect(try SystemZoneOracle.unexplained([wrong]).map(\.seconds) == [0])
        #expect(throws: SystemZoneOracle.OracleFailure.self) {
            try SystemZoneOracle.offsets([("Not/AZone", 0)])
        }
    }
}

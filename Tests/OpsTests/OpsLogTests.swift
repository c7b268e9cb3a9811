import Foundation
import Logging
import Operations
import PlanJSON
import PlanRules
import Testing

/// Log lines: one per event, text or JSON, with run_id and user_id, and no health data.
@Suite struct OpsLogTests {
    /// Logs three events through `LogLineHandler` into a file and returns the lines.
    private func logged(format: LogFormat, _ body: (Logger) -> Void) throws -> [String] {
        try withTemporaryDirectory { folder in
            let path = folder + "/log"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            let output = ConsoleOutput(descriptor: fd)
            let clock: @Sendable () -> Instant = { Instant(rfc3339: "2026-11-22T07:00:00.125999Z")! }
            var logger = Logger(label: "test") { _ in
                LogLineHandler(level: .info, format: format, output: output, clock: clock)
            }
            logger[metadataKey: "run_id"] = "7"
            body(logger)
            close(fd)
            return lines(try String(contentsOfFile: path, encoding: .utf8))
        }
    }

    @Test func jsonLinesAreOneObjectEachWithTimestampLevelMessageAndMetadata() throws {
        let output = try logged(format: .json) { logger in
            logger.info("run started", metadata: ["as_of": "2026-11-22T07:00:00.000000Z"])
            logger.debug("below the level: not written")
            logger.error("line one\nline two \"quoted\"", metadata: ["user_id": "42"])
        }
        #expect(output.count == 2)
        let first = try JSONValue(parsing: output[0])
        #expect(first["ts"] == .string("2026-11-22T07:00:00.125Z"))
        #expect(first["level"] == .string("info"))
        #expect(first["msg"] == .string("run started"))
        #expect(first["run_id"] == .string("7"))
        #expect(first["as_of"] == .string("2026-11-22T07:00:00.000000Z"))
        let second = try JSONValue(parsing: output[1])
        #expect(second["level"] == .string("error"))
        #expect(second["msg"] == .string("line one\nline two \"quoted\""))
        #expect(second["user_id"] == .string("42"))
        #expect(second["run_id"] == .string("7"))
    }

    @Test func textLinesPutMetadataAfterTheMessageInKeyOrderQuotingWhereNeeded() throws {
        let output = try logged(format: .text) { logger in
            logger.notice("run finished", metadata: ["due": "3", "error": "a b=c", "empty": ""])
            logger.warning("two\nlines")
        }
        #expect(output == [
            "2026-11-22T07:00:00.125Z notice run finished due=3 empty=\"\" error=\"a b=c\" run_id=7",
            "2026-11-22T07:00:00.125Z warning two\\nlines run_id=7",
        ])
    }

    /// A real run with `--log-format json`: every stderr line is a JSON object; every
    /// line about a user names the user and the run; no metadata key outside the known
    /// set (a new key carrying weights would fail here) and no date of birth anywhere.
    @Test func aRunLogsJSONLinesWithRunAndUserIDsAndNoHealthData() throws {
        try withDemoDatabase(users: 300) { database, connection in
            try withTemporaryDirectory { folder in
                let finished = try PlanRegenProcess.run(
                    ["run", "--as-of", firstRunAt, "--log-format", "json", "--notifications", folder + "/n.jsonl"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(finished.exitCode == 0, "\(finished.stderr)")
                let runID = try connection.count("SELECT max(run_id) FROM plan_runs")
                let rejectedUsers = Set(try connection.query(
                    "SELECT DISTINCT user_id FROM plan_rejections", purpose: "test").map { try $0.int64(0) })
                #expect(!rejectedUsers.isEmpty, "the demo data has invalid rows")

                let safeKeys: Set<String> = [
                    "ts", "level", "msg", "as_of", "dry_run", "users_requested", "partitions", "run_id",
                    "candidates", "user_id", "fields", "notifications", "due", "created", "changed", "unchanged",
                    "skipped_incomplete", "rejected", "unknown_users", "duration_ms", "stopped_early",
                    "status", "partitions_held_by_others", "units", "round_trips", "round_trips_per_batch",
                    "connections", "batches", "found_late", "left_to_newer_rules",
                    // rules versions and their rollouts: versions and instants only
                    "users", "rules_version", "newest_rules_version", "rollout_start", "older_versions", "rules_versions",
                    // delivery: counts, batch ids, the receiver's answer, the destination (a URL's password redacted)
                    "notifications_pending", "destination", "delivered", "pending", "refused_batches", "left_to_others",
                    "requests", "retries", "batch_id", "response", "attempt", "retry_in_s", "failure_class", "failures",
                    "error", "reason",
                ]
                var loggedRejections = Set<Int64>()
                for line in lines(finished.stderr) {
                    guard case .object(let members) = try JSONValue(parsing: line) else {
                        Issue.record("not a JSON object: \(line)")
                        continue
                    }
                    let object = JSONValue.object(members)
                    #expect(object["ts"] != nil && object["level"] != nil && object["msg"] != nil)
                    for member in members {
                        #expect(safeKeys.contains(member.key), "unexpected log key \(member.key) in \(line)")
                    }
                    if case .string(let user)? = object["user_id"] {
                        #expect(object["run_id"] == .string("\(runID)"), "\(line)")
                        if object["msg"] == .string("settings row rejected") { loggedRejections.insert(Int64(user)!) }
                    }
                }
                #expect(loggedRejections == rejectedUsers)
                let birthDates = try connection.query(
                    "SELECT DISTINCT date_of_birth::text FROM user_settings WHERE date_of_birth IS NOT NULL",
                    purpose: "test").map { try $0.string(0) }
                for date in birthDates {
                    #expect(!finished.stderr.contains(date), "a date of birth (\(date)) appears in the logs")
                }
            }
        }
    }

    /// A corrupt stored plan fails the run naming the user and the field, not the value.
    @Test func aCorruptStoredPlanIsReportedWithoutItsValue() throws {
        try withDemoDatabase(users: 5) { database, connection in
            try withTemporaryDirectory { folder in
                let run = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", folder + "/n"],
                                                   databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 0, "\(run.stderr)")
                let user = try connection.count("SELECT min(user_id) FROM plan_state WHERE plan_date IS NOT NULL")
                try connection.execute(
                    "UPDATE plan_history SET snapshot = jsonb_set(snapshot, '{inputs,weight_kg_reported}', '82.25') WHERE user_id = \(user)",
                    purpose: "test: corrupt a stored plan")
                let failed = try PlanRegenProcess.run(
                    ["run", "--as-of", switchRunAt, "--user", "\(user)", "--notifications", folder + "/n"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(failed.exitCode == 1)
                #expect(failed.stderr.contains("user \(user): stored plan state cannot be read"))
                #expect(failed.stderr.contains("inputs.weight_kg_reported"))
                #expect(!failed.stderr.contains("82.25"))
            }
        }
    }
}

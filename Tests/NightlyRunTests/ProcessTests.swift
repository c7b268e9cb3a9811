import DemoData
import Foundation
import PlanRules
import PlanStore
import Testing
import TestSupport

/// `plan-regen run` as a real process: exit codes, stdout carrying only notification
/// JSON lines, logs on stderr, and two processes started at the same moment.
@Suite struct ProcessTests {
    static let asOf = "2026-04-10T10:00:00Z"

    @Test func stdoutCarriesOnlyNotificationLinesAndLogsGoToStderr() throws {
        try RunDriver.withFresh { driver in
            try DemoUsers.insert(count: 300, writtenBefore: try #require(Instant(rfc3339: Self.asOf)),
                                 into: driver.connection)
            let run = try PlanRegenProcess.run(["run", "--as-of", Self.asOf], databaseURL: driver.database.conninfo,
                                               outputDirectory: driver.directory)
            #expect(run.exitCode == 0, "stderr: \(run.stderr)")
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(run.stdout.hasSuffix("\n"))
            var ids: [String] = []
            for line in lines {
                let notification = try #require(try? NotificationLine.parse(String(line)), "not a notification: \(line)")
                ids.append(notification.id)
            }
            let outbox = try driver.outbox()
            #expect(ids.count > 200)
            #expect(ids.sorted() == outbox.map(\.id))
            #expect(outbox.allSatisfy { $0.emitted })
            #expect(run.stderr.contains("run started") && run.stderr.contains("run finished"))
            #expect(!run.stderr.contains("\"schema_version\""))
        }
    }

    /// Pinned to one CPU (`taskset`, as a container's cpuset or Kubernetes' static CPU
    /// manager pins it), the job counts one usable core whatever the machine has: its
    /// default `--workers` is 2 (Foundation alone counted every online CPU).
    @Test func aProcessPinnedToOneCPUDefaultsToTwoWorkers() throws {
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        try #require(FileManager.default.isExecutableFile(atPath: taskset.path), "taskset (util-linux) is missing")
        let help = try runCapturingStandardOutput(
            taskset, ["--cpu-list", "0", try PlanRegenProcess.binary().path, "run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("from 2 to 8 (here 2)"), "\(help.stdout)")
    }

    /// The other users are done first; then the unknown id is reported and the exit
    /// code is 3 (docs/operations.md, "Exit codes and run statuses").
    @Test func anUnknownUserIDIsReportedOnStderrAndExitsWith3AfterTheOthers() throws {
        try RunDriver.withFresh { driver in
            try driver.insert(TestUser(userID: 5, updatedAt: try #require(Instant(rfc3339: "2026-04-09T10:00:00Z"))))
            let run = try PlanRegenProcess.run(["run", "--as-of", Self.asOf, "--user", "987654", "--user", "5"],
                                               databaseURL: driver.database.conninfo, outputDirectory: driver.directory)
            #expect(run.exitCode == 3)
            #expect(run.stderr.contains("987654"))
            #expect(try NotificationLine.parse(run.stdout.trimmingCharacters(in: .newlines)).id
                    == "5:2026-04-10:plan_created:0")
            #expect(try driver.history(of: 5).count == 1)
        }
    }

    /// The reader of stdout goes away mid-run: the run ends with exit code 1, and the
    /// lines it could not write stay in the outbox for the next run, with the same ids.
    @Test func aBrokenStdoutPipeLeavesTheRestPendingForTheNextRun() throws {
        try RunDriver.withFresh { driver in
            let asOf = try #require(Instant(rfc3339: Self.asOf))
            try DemoUsers.insert(count: 600, writtenBefore: asOf, into: driver.connection)
            let pipe = Pipe()
            let run = try PlanRegenProcess(["run", "--as-of", Self.asOf, "--batch-size", "50"],
                                           databaseURL: driver.database.conninfo,
                                           outputDirectory: driver.directory, stdoutPipe: pipe)
            // Hundreds of lines do not fit in the pipe's 64 KiB: the run blocks until the
            // reader closes its end, then its next write fails.
            _ = pipe.fileHandleForReading.readData(ofLength: 1000)
            try pipe.fileHandleForReading.close()
            try pipe.fileHandleForWriting.close()
            let broken = try run.wait()
            #expect(broken.exitCode == 1)
            #expect(broken.stderr.contains("stay in the outbox"))

            let pending = try driver.outbox().filter { !$0.emitted }
            #expect(!pending.isEmpty)
            // The next run first emits what was left, then does the users the broken run
            // never reached.
            let next = try driver.run(at: asOf.adding(minutes: 15))
            let emitted = try driver.emittedNotifications().map(\.id)
            #expect(emitted.prefix(pending.count).sorted() == pending.map(\.id))
            #expect(emitted.count == pending.count + next.counts.notifications)
            #expect(try driver.outbox().allSatisfy { $0.emitted })
        }
    }

    @Test func usageErrorsExit64AndFatalErrorsExit1() throws {
        try RunDriver.withFresh { driver in
            let usage = try PlanRegenProcess.run(["run", "--as-of", "yesterday"], databaseURL: driver.database.conninfo,
                                                 outputDirectory: driver.directory)
            #expect(usage.exitCode == 64)
            #expect(usage.stderr.contains("--as-of") && usage.stdout.isEmpty)

            let missing = driver.database.conninfo.replacingOccurrences(
                of: "dbname='\(driver.database.name)'", with: "dbname='\(driver.database.name)_missing'")
            #expect(missing != driver.database.conninfo)
            let fatal = try PlanRegenProcess.run(["run", "--as-of", Self.asOf], databaseURL: missing,
                                                 outputDirectory: driver.directory)
            #expect(fatal.exitCode == 1)
            #expect(fatal.stderr.contains("_missing") && fatal.stdout.isEmpty)
        }
    }

    /// Two runs started together over 3,000 due users: every user is handled by exactly
    /// one of them, no history row or notification is duplicated, and the counts the
    /// runs recorded add up to the rows.
    @Test func twoRunsStartedAtTheSameMomentNeverDuplicateAHistoryRowOrANotification() throws {
        try RunDriver.withFresh { driver in
            let users = 3000
            try DemoUsers.insert(count: users, writtenBefore: try #require(Instant(rfc3339: Self.asOf)),
                                 into: driver.connection)
            let arguments = ["run", "--as-of", Self.asOf, "--batch-size", "250"]
            let first = try PlanRegenProcess(arguments, databaseURL: driver.database.conninfo,
                                             outputDirectory: driver.directory)
            let second = try PlanRegenProcess(arguments, databaseURL: driver.database.conninfo,
                                              outputDirectory: driver.directory)
            let runs = [try first.wait(), try second.wait()]
            #expect(runs.map(\.exitCode) == [0, 0], "stderr: \(runs.map(\.stderr))")

            let emitted = try runs.flatMap { run in
                try run.stdout.split(separator: "\n").map { try NotificationLine.parse(String($0)).id }
            }
            #expect(Set(emitted).count == emitted.count, "a notification id was emitted twice")
            #expect(emitted.sorted() == (try driver.outbox().map(\.id)))

            let totals = try driver.connection.query(
                """
                SELECT (SELECT count(*) FROM plan_history),
                       (SELECT count(DISTINCT (user_id, plan_date)) FROM plan_history),
                       (SELECT count(DISTINCT user_id) FROM plan_history),
                       (SELECT count(*) FROM plan_state),
                       (SELECT sum(created) FROM plan_runs), (SELECT sum(notifications) FROM plan_runs),
                       (SELECT sum(created + rejected + skipped_incomplete) FROM plan_runs),
                       (SELECT count(*) FROM plan_runs WHERE status IN ('succeeded', 'held_by_others'))
                """, purpose: "counting what the two runs wrote").singleRow()
            let historyRows = try totals.int(0)
            #expect(historyRows > 2000)
            #expect(try totals.int(1) == historyRows && totals.int(2) == historyRows)
            #expect(try totals.int(3) == users, "every user evaluated")
            #expect(try totals.int(4) == historyRows)
            #expect(try totals.int(5) == emitted.count)
            #expect(try totals.int(6) == users, "every user counted once: created, rejected or incomplete")
            // Each run completed: alone, or leaving the partitions the other had claimed to it.
            #expect(try totals.int(7) == 2)
        }
    }
}

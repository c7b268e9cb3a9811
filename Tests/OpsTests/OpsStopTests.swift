import Foundation
import Postgres
import Testing

/// SIGTERM mid-run: the batch in flight is committed and emitted, the run exits 75, and
/// the next run finishes the rest without duplicates.
@Suite struct OpsStopTests {
    @Test func sigtermFinishesTheBatchInFlightAndExitsWith75() throws {
        let users = 10_000
        try withDemoDatabase(users: users) { database, connection in
            try withTemporaryDirectory { folder in
                let notifications = folder + "/notifications.jsonl"
                let job = try PlanRegenProcess(
                    ["run", "--as-of", firstRunAt, "--batch-size", "10", "--notifications", notifications],
                    databaseURL: database.conninfo, folder: folder)
                // Signal once the first batch's notifications are out (polling, not timing).
                while job.process.isRunning, (try? FileManager.default.attributesOfItem(atPath: notifications)[.size]
                                               as? Int) ?? 0 == 0 {
                    usleep(1000)
                }
                try #require(job.process.isRunning, "the run finished before it could be stopped")
                kill(job.process.processIdentifier, SIGTERM)
                let stopped = try job.wait()
                #expect(stopped.exitCode == 75, "\(stopped.stderr)")
                #expect(stopped.stderr.contains("stop requested"))

                // Every committed batch is whole: 10 users each, and each written plan's
                // notification is in the outbox, marked emitted, and in the file once.
                let evaluated = try connection.count("SELECT count(*) FROM plan_state")
                #expect(evaluated > 0 && evaluated < users)
                #expect(evaluated % 10 == 0)
                let written = try connection.count("SELECT count(*) FROM plan_history")
                #expect(try connection.count("SELECT count(*) FROM notification_outbox") == written)
                #expect(try connection.count("SELECT count(*) FROM notification_outbox_lines WHERE emitted_at IS NULL") == 0)
                let emitted = lines(try String(contentsOfFile: notifications, encoding: .utf8))
                #expect(emitted.count == written)
                // Recorded as stopped, not succeeded (exit 75, and the units treat 75 as success).
                #expect(try connection.count("SELECT count(*) FROM plan_runs WHERE status = 'stopped'") == 1)
                #expect(try connection.count("SELECT count(*) FROM plan_runs WHERE status = 'succeeded'") == 0)

                // The next run completes the rest: every user evaluated once, no plan or line twice.
                let rest = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", notifications],
                                                    databaseURL: database.conninfo, folder: folder)
                #expect(rest.exitCode == 0, "\(rest.stderr)")
                #expect(try connection.count("SELECT count(*) FROM plan_state") == users)
                #expect(try connection.count("SELECT count(DISTINCT user_id) FROM plan_history")
                        == connection.count("SELECT count(*) FROM plan_history"))
                let all = lines(try String(contentsOfFile: notifications, encoding: .utf8))
                #expect(all.count == (try connection.count("SELECT count(*) FROM plan_history")))
            }
        }
    }
}

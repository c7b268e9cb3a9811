import Foundation
import Postgres
import Testing

/// `plan-regen prune`: emitted lines, old dead letters, rejections and unreferenced runs go;
/// history stays.
@Suite struct OpsPruneTests {
    @Test func pruneRemovesOldEmittedLinesRejectionsAndUnreferencedRunsButKeepsHistory() throws {
        try withDemoDatabase(users: 120) { database, connection in
            try withTemporaryDirectory { folder in
                // Run 1 writes plans; runs 2 and 3 at the same instant write nothing.
                for _ in 0..<3 {
                    let run = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", folder + "/n"],
                                                       databaseURL: database.conninfo, folder: folder)
                    #expect(run.exitCode == 0, "\(run.stderr)")
                }
                let history = try connection.count("SELECT count(*) FROM plan_history")
                let rejections = try connection.count("SELECT count(*) FROM plan_rejections")
                #expect(rejections > 0)
                // Everything 40 days old, but one line still pending, ten emitted recently, and
                // of the dead letters three set aside 40 days ago and two recently.
                try connection.executeScript(
                    """
                    UPDATE plan_runs SET started_at = now() - interval '40 days';
                    UPDATE plan_rejections SET recorded_at = now() - interval '40 days';
                    UPDATE notification_batches SET emitted_at = now() - interval '40 days';
                    WITH pending AS (INSERT INTO notification_batches (run_id) VALUES (1) RETURNING batch_id)
                    UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM pending)
                        WHERE notification_id = (SELECT min(notification_id) FROM notification_outbox);
                    WITH recent AS (INSERT INTO notification_batches (run_id, emitted_at) VALUES (1, now())
                                    RETURNING batch_id)
                    UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM recent)
                        WHERE notification_id IN (SELECT notification_id FROM notification_outbox_lines
                                                  WHERE emitted_at IS NOT NULL ORDER BY notification_id DESC LIMIT 10);
                    WITH old AS (INSERT INTO notification_batches (run_id, set_aside_at)
                                 VALUES (1, now() - interval '40 days') RETURNING batch_id)
                    UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM old)
                        WHERE notification_id IN (SELECT notification_id FROM notification_outbox_lines
                                                  WHERE emitted_at < now() - interval '30 days' LIMIT 3);
                    WITH recent AS (INSERT INTO notification_batches (run_id, set_aside_at) VALUES (1, now())
                                    RETURNING batch_id)
                    UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM recent)
                        WHERE notification_id IN (SELECT notification_id FROM notification_outbox_lines
                                                  WHERE emitted_at < now() - interval '30 days' LIMIT 2);
                    """, purpose: "test: age the rows")
                let oldEmitted = try connection.count(
                    "SELECT count(*) FROM notification_outbox_lines WHERE emitted_at < now() - interval '30 days'")

                let pruned = try PlanRegenProcess.run(["prune", "--older-than", "30d", "--batch-size", "7"],
                                                      databaseURL: database.conninfo, folder: folder)
                #expect(pruned.exitCode == 0, "\(pruned.stderr)")
                #expect(pruned.stdout.contains(": \(oldEmitted) emitted notifications, 3 dead letters, \(rejections) rejections, 2 runs"),
                        "\(pruned.stdout)")
                #expect(try connection.count("SELECT count(*) FROM plan_history") == history)
                #expect(try connection.count("SELECT count(*) FROM plan_rejections") == 0)
                #expect(try connection.count("SELECT count(*) FROM notification_outbox") == 13)
                #expect(try connection.count("SELECT count(*) FROM notification_outbox_lines WHERE emitted_at IS NULL") == 3)
                #expect(try connection.count("SELECT count(*) FROM notification_dead_letters") == 2)
                // Run 1 wrote the history (and still has outbox lines): it stays.
                #expect(try connection.count("SELECT count(*) FROM plan_runs") == 1)
                #expect(try connection.count("SELECT min(run_id) FROM plan_runs") == 1)

                let again = try PlanRegenProcess.run(["prune", "--older-than", "30d"],
                                                     databaseURL: database.conninfo, folder: folder)
                #expect(again.stdout.contains(": 0 emitted notifications, 0 dead letters, 0 rejections, 0 runs"))
            }
        }
    }

    @Test func anAgeWithoutAUnitIsAUsageError() throws {
        try withTemporaryDirectory { folder in
            let refused = try PlanRegenProcess.run(["prune", "--older-than", "30"], databaseURL: nil, folder: folder)
            #expect(refused.exitCode == 64)
            #expect(refused.stderr.contains("must be a number followed by d or h"))
        }
    }
}

import ArgumentParser
import Foundation
import PlanRules
import PlanStore
import Postgres
import ZoneFiles

/// The scale benchmark of issue 5. `Benchmarks/run.sh` builds it in release mode, starts
/// a throwaway PostgreSQL and runs it; it prints a Markdown table (README "Scale").
@main
struct PlanRegenBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan-regen-bench",
        abstract: "Measures plan-regen runs against PostgreSQL's own floor and a naive peer.",
        discussion: """
            Needs a superuser connection in the PG* environment (it creates databases and has
            the server write COPY files) and the release plan-regen binary beside it.

            Examples:
              plan-regen-bench --sizes 100000,1000000 --naive-users 100000
              plan-regen-bench --sizes 20000 --naive-users 0 --markdown /tmp/bench.md
            """)

    @Option(help: ArgumentHelp("Numbers of users, comma-separated.", valueName: "n,n"))
    var sizes = "100000,1000000"

    @Option(help: "Users of the naive peer's run (0: skip it).")
    var naiveUsers = 100_000

    @Option(help: ArgumentHelp("A folder the database server can write, for the floor's COPY files.",
                               valueName: "dir"))
    var scratch = "/tmp/plan-regen-bench"

    @Option(help: ArgumentHelp("Also write the table to this file.", valueName: "file"))
    var markdown: String?

    @ArgumentParser.Flag(help: "Measure the pure rules only (seconds, not half an hour): for work on the job's own CPU.")
    var rulesOnly = false

    /// The first run's instant; later runs are days after it.
    static let t0 = Instant(rfc3339: "2026-11-22T12:00:00Z")!

    func run() throws {
        let sizes = try self.sizes.split(separator: ",").map {
            guard let n = Int($0), n > 0 else { throw ValidationError("--sizes: '\($0)' is not a number of users") }
            return n
        }
        // The folder is written into COPY statements (a file name cannot be a parameter).
        guard scratch.hasPrefix("/"), !scratch.contains("'"), !scratch.contains("\\") else {
            throw ValidationError("--scratch: '\(scratch)' must be an absolute path without quotes or backslashes")
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(scratch, 0o777)
        let job = try JobBinary.besideThisExecutable()
        let zones = try ZoneDatabase.loadSystem()
        var report = Report()
        report.note("plan-regen-bench, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
                    + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, "
                    + (try serverVersion()))
        for size in sizes {
            try measureJob(users: size, job: job, zones: zones, report: &report)
        }
        if naiveUsers > 0, !rulesOnly {
            log("naive peer: \(naiveUsers) users")
            let database = try BenchDatabase.create("plan_regen_bench_naive", users: naiveUsers,
                                                    writtenBefore: Self.t0.adding(seconds: -86_400))
            try database.settle()
            let seconds = try NaivePeer.firstRun(database: database, users: naiveUsers, asOf: Self.t0, zones: zones)
            report.add(Report.Row(scenario: "naive peer: first run, 1 user per transaction", users: naiveUsers,
                                  config: "1 connection", seconds: seconds, rssBytes: nil, floor: nil))
        }
        print(report.markdown)
        if let markdown { try report.markdown.write(toFile: markdown, atomically: true, encoding: .utf8) }
    }

    private func measureJob(users: Int, job: JobBinary, zones: ZoneDatabase, report: inout Report) throws {
        log("\(users) users: creating the database")
        let database = try BenchDatabase.create("plan_regen_bench_\(users)", users: users,
                                                writtenBefore: Self.t0.adding(seconds: -86_400))
        let url = ["--database-url", database.conninfo, "--log-level", "notice"]
        // t0 and the days after it may still be ahead of the clock: the database is the benchmark's own.
        func runArgs(_ asOf: Instant, _ extra: [String]) -> [String] {
            ["run", "--as-of", asOf.rfc3339, "--allow-future"] + url + extra
        }
        let input = """
            SELECT user_id, date_of_birth, gender, height_cm, current_weight_kg, target_weight_kg, primary_goal,
                   target_date, activity_level, dietary_preferences, allergies, meals_per_day, timezone,
                   onboarding_completed, updated_at FROM user_settings
            """

        if users <= 200_000 || rulesOnly {
            let rules = try RulesOnly.measure(database: database, users: users, at: Self.t0, zones: zones)
            report.note(String(format: "rules only, in process, %d users (%d valid): a full plan (zone, local date, "
                               + "validation, computePlan) %.2f µs/user; evaluate (also due reasons, diff, "
                               + "notification, next check) %.2f µs/user; evaluate + snapshot, diff and "
                               + "notification JSON %.2f µs/user",
                               rules.users, rules.plans, rules.fullPlanNanosPerUser / 1000,
                               rules.evaluateNanosPerUser / 1000, rules.evaluateAndEncodeNanosPerUser / 1000))
        }
        if rulesOnly { return }

        // (a) Everyone is new: one process with 1 and 2 workers, then two shards.
        let configs: [(name: String, processes: [[String]], connections: Int)] = [
            ("1 worker", [["--workers", "1"]], 1),
            ("2 workers", [["--workers", "2"]], 2),
            ("2 shards × 1 worker", [["--shard", "0/2"], ["--shard", "1/2"]], 2),
        ]
        var firstRunFloor: Floor?
        for config in configs {
            try database.resetJobTables()
            log("\(users) users: first run, \(config.name)")
            let runs = try job.run(config.processes.map { runArgs(Self.t0, $0) })
            if firstRunFloor == nil {
                firstRunFloor = try Floor.measure(
                    database: database, outputs: Self.outputs(ofRun: nil), inputs: [input], folder: scratch)
            }
            report.add(Report.Row(scenario: "first run (everyone new)", users: users, config: config.name,
                                  runs: runs, floor: firstRunFloor, workers: config.connections))
        }

        // (a) A new rules version: everyone due, `previous` filled. Days 1 and 2 after t0.
        for (day, workers) in [(1, 1), (2, 2)] {
            try database.pretendOlderRulesVersion()
            log("\(users) users: rules-change run, \(workers) worker(s)")
            let asOf = Self.t0.adding(seconds: Int64(day) * 86_400)
            let runs = try job.run([runArgs(asOf, ["--workers", "\(workers)"])])
            let runID = try database.count("SELECT max(run_id)::int FROM plan_runs")
            let floor = try Floor.measure(database: database, outputs: Self.outputs(ofRun: runID),
                                          inputs: [input, "SELECT * FROM plan_state"], folder: scratch)
            report.add(Report.Row(scenario: "rules-change run (everyone due)", users: users,
                                  config: "\(workers) worker\(workers > 1 ? "s" : "")", runs: runs, floor: floor,
                                  workers: workers))
        }

        // (b) A typical night: 3% changed their weight the day before.
        let night = Self.t0.adding(seconds: 3 * 86_400)
        let changed = try database.changeWeights(at: night.adding(seconds: -23 * 3600))
        log("\(users) users: nightly run, \(changed) changed")
        let nightly = try job.run([runArgs(night, ["--workers", "2"])])
        let due = try database.count("SELECT due FROM plan_runs ORDER BY run_id DESC LIMIT 1")
        report.add(Report.Row(scenario: "nightly run (\(due) due, ≈3%)", users: users, config: "2 workers",
                              runs: nightly, floor: nil, workers: 2))

        // (c) Nothing due; (d) one user. Best of five: startup dominates.
        var nothing: [ChildRun] = []
        var single: [ChildRun] = []
        for attempt in 1...5 {
            let asOf = night.adding(seconds: Int64(attempt) * 60)
            nothing += try job.run([runArgs(asOf, [])])
            single += try job.run([runArgs(asOf, ["--user", "\(users / 2)"])])
        }
        report.add(Report.Row(scenario: "nothing due (median of 5)", users: users, config: "1 process",
                              runs: [median(nothing)], floor: nil, workers: 1))
        report.add(Report.Row(scenario: "single-user rerun `--user` (median of 5)", users: 1, config: "1 process",
                              runs: [median(single)], floor: nil, workers: 1))
    }

    /// The job's output tables, and the rows run `runID` wrote to them (nil: all rows).
    static func outputs(ofRun runID: Int?) -> [Floor.Output] {
        let ofRun = runID.map { "run_id = \($0)" } ?? "true"
        return [
            Floor.Output(table: "plan_history", rows: ofRun, splitColumn: "id"),
            // The job writes every evaluated user's state row.
            Floor.Output(table: "plan_state", rows: runID.map { "updated_by_run = \($0)" } ?? "true",
                         splitColumn: "user_id"),
            Floor.Output(table: "notification_outbox", rows: ofRun, splitColumn: "user_id"),
            Floor.Output(table: "plan_rejections", rows: ofRun, splitColumn: "id"),
        ]
    }

    private func median(_ runs: [ChildRun]) -> ChildRun {
        runs.sorted { $0.wallSeconds < $1.wallSeconds }[runs.count / 2]
    }

    private func serverVersion() throws -> String {
        try PostgresConnection.connectFromEnvironment().query("SHOW server_version", purpose: "reading the version")
            .singleRow().string(0).split(separator: " ").first.map { "PostgreSQL \($0)" } ?? "PostgreSQL"
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
}

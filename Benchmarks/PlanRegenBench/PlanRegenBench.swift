import ArgumentParser
import Foundation
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import ZoneFiles

/// The scale benchmark (issues 5 and 17). `Benchmarks/run.sh` builds it in release mode,
/// starts a throwaway PostgreSQL and runs it; it prints a Markdown table (docs/performance.md)
/// and draws users/s and peak RSS against N (`--plot`).
@main
struct PlanRegenBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan-regen-bench",
        abstract: "Measures plan-regen runs, as ops run them, against PostgreSQL's own floor and two peers.",
        discussion: """
            Needs a superuser connection in the PG* environment (it creates databases and has
            the server write COPY files) and the release plan-regen and delay-proxy binaries
            beside it.

            Examples:
              plan-regen-bench --sizes 100000,1000000
              plan-regen-bench --sizes 10000000            # first, nightly, nothing-due, single-user only
              plan-regen-bench --sizes 20000 --repeats 1 --naive-users 0 --markdown /tmp/bench.md
              plan-regen-bench --sizes 100000 --decode-only   # µs to decode one stored plan
              plan-regen-bench --sizes 1000000 --webhook-comparison --repeats 1
              plan-regen-bench --sizes 1000000 --rollout-only # a new rules version: preview and rollout
            """)

    @Option(help: ArgumentHelp("Numbers of users, comma-separated.", valueName: "n,n"))
    var sizes = "100000,1000000"

    @Option(help: "Runs of each headline scenario (first run, rules-change run) and of their floors; the median is reported.")
    var repeats = 3

    @ArgumentParser.Flag(inversion: .prefixedNo,
                         help: "Before the measured first runs, one unmeasured first run (logged): a database just created has no WAL files to recycle, and its first run creates and zero-fills them, which no later run and no floor load pays.")
    var warmUp = true

    @Option(help: "Users of the naive peer's run (0: skip it).")
    var naiveUsers = 20_000

    @Option(help: "Sizes above this many users measure only the first run, the nightly run, nothing due and a single-user rerun (no floors, peers or proxy).")
    var fullUpTo = 2_000_000

    @Option(help: ArgumentHelp("One-way delay of the remote-database proxy, in microseconds (0: no proxy runs).",
                               valueName: "µs"))
    var proxyDelay = 500

    @Option(help: ArgumentHelp("A folder the database server can write, for the floor's COPY files.",
                               valueName: "dir"))
    var scratch = "/tmp/plan-regen-bench"

    @Option(help: ArgumentHelp("Also write the table to this file.", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Draw users/s and peak RSS of the first run against N into this SVG file.", valueName: "file"))
    var plot: String?

    @Option(help: ArgumentHelp("Only draw --plot from the first-run rows of these tables (--markdown files), comma-separated.",
                               valueName: "file,file"))
    var plotFrom: String?

    @ArgumentParser.Flag(help: "Measure the pure rules only (seconds, not half an hour): for work on the job's own CPU.")
    var rulesOnly = false

    @ArgumentParser.Flag(help: "Measure a new rules version only: the preview, the rollout's start run and a day of its 15-minute runs (after one first run).")
    var rolloutOnly = false

    @ArgumentParser.Flag(help: "Measure decoding stored plans only (plan_history.snapshot::text after a first run, µs per snapshot, CPU time): for work on reading plans back.")
    var decodeOnly = false

    @ArgumentParser.Flag(help: "Measure only a first run delivering by webhook to the reference receiver on this machine against the same run writing a file.")
    var webhookComparison = false

    @Option(help: ArgumentHelp("The Python with standardwebhooks that runs deploy/examples/webhook_receiver.py (--webhook-comparison).",
                               valueName: "path"))
    var receiverPython = "/tmp/plan-regen-webhook-venv/bin/python"

    /// The first run's instant; later runs are days after it.
    static let t0 = Instant(rfc3339: "2026-11-22T12:00:00Z")!

    /// Months of `plan_history` before the first run's, for the rules change on a database
    /// in service: with the first run's own, three years.
    static let olderHistoryMonths = 34

    func run() throws {
        if let plotFrom {
            guard let plot else { throw ValidationError("--plot-from needs --plot FILE") }
            let tables = try plotFrom.split(separator: ",").map { try String(contentsOfFile: String($0), encoding: .utf8) }
            try ScalePlot(markdownTables: tables).svg.write(toFile: plot, atomically: true, encoding: .utf8)
            return
        }
        let sizes = try self.sizes.split(separator: ",").map {
            guard let n = Int($0), n > 0 else { throw ValidationError("--sizes: '\($0)' is not a number of users") }
            return n
        }
        guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1") }
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
                    + (try serverVersion()) + "; plan-regen's default --workers here: \(WorkerThreads.defaultCount)"
                    + (try cpuPlacement()))
        for size in sizes {
            try measureJob(users: size, job: job, zones: zones, report: &report)
        }
        if naiveUsers > 0, !rulesOnly, !decodeOnly, !webhookComparison, !rolloutOnly {
            log("naive peer: \(naiveUsers) users")
            let database = try BenchDatabase.create("plan_regen_bench_naive", users: naiveUsers,
                                                    writtenBefore: Self.t0.adding(seconds: -86_400))
            try database.settle()
            let seconds = try NaivePeer.firstRun(database: database, users: naiveUsers, asOf: Self.t0, zones: zones)
            report.add(Report.Row(scenario: "naive peer: first run, 1 user per transaction", users: naiveUsers,
                                  config: "1 connection", seconds: seconds))
            try database.drop()
        }
        print(report.markdown)
        if let markdown { try report.markdown.write(toFile: markdown, atomically: true, encoding: .utf8) }
        if let plot { try ScalePlot(rows: report.rows).svg.write(toFile: plot, atomically: true, encoding: .utf8) }
    }

    private func measureJob(users: Int, job: JobBinary, zones: ZoneDatabase, report: inout Report) throws {
        let full = users <= fullUpTo
        let started = DispatchTime.now()
        log("\(users) users: creating the database")
        let database = try BenchDatabase.create("plan_regen_bench_\(users)", users: users,
                                                writtenBefore: Self.t0.adding(seconds: -86_400))
        let seeded = timed(since: started)
        if decodeOnly {
            log("\(users) users: first run, then decoding its stored plans")
            let decode = try DecodeOnly.measure(database: database, job: job, at: Self.t0)
            report.note(String(format: "decoding stored plans, in process, %d snapshots of %.0f bytes (jsonb text): "
                               + "Snapshot(json:) %.2f µs/snapshot; via the JSONValue tree %.2f µs/snapshot "
                               + "(thread CPU time, best of 5)",
                               decode.snapshots, decode.bytesPerSnapshot, decode.decodeNanosPerSnapshot / 1000,
                               decode.treeNanosPerSnapshot / 1000))
            try database.drop()
            return
        }
        let local = ["--database-url", database.conninfo]
        // t0 and the days after it may still be ahead of the clock: the database is the benchmark's own.
        func runArgs(_ asOf: Instant, _ extra: [String] = [], url: [String] = local) -> [String] {
            ["run", "--as-of", asOf.rfc3339, "--allow-future", "--log-level", "notice"] + url + extra
        }
        let workers = WorkerThreads.defaultCount
        let defaults = "no flags (\(workers) workers)"
        let input = Floor.Input(select: """
            SELECT user_id, date_of_birth, gender, height_cm, current_weight_kg, target_weight_kg, primary_goal,
                   target_date, activity_level, dietary_preferences, allergies, meals_per_day, timezone,
                   onboarding_completed, updated_at FROM user_settings
            """, userColumn: "user_id")

        if (users <= 200_000 && !webhookComparison) || rulesOnly {
            let rules = try RulesOnly.measure(database: database, users: users, at: Self.t0, zones: zones)
            report.note(String(format: "rules only, in process, %d users (%d valid): a full plan (zone, local date, "
                               + "validation, computePlan) %.2f µs/user; evaluate (also due reasons, diff, "
                               + "notification, next check) %.2f µs/user; evaluate + snapshot, diff and "
                               + "notification JSON %.2f µs/user",
                               rules.users, rules.plans, rules.fullPlanNanosPerUser / 1000,
                               rules.evaluateNanosPerUser / 1000, rules.evaluateAndEncodeNanosPerUser / 1000))
        }
        if rulesOnly { return }
        if webhookComparison {
            let result = try WebhookComparison.measure(
                database: database, users: users, job: job, repeats: repeats, warmUp: warmUp, scratch: scratch,
                receiverPython: receiverPython, runArgs: { runArgs(Self.t0, $0) })
            report.add(Report.Row(scenario: "first run, lines to a file", users: users, config: defaults,
                                  runs: result.file, floor: nil))
            report.add(Report.Row(scenario: "first run, lines to a webhook on this machine", users: users,
                                  config: defaults, runs: result.webhook, floor: nil,
                                  proxyCPUSeconds: result.receiverCPUSeconds))
            let ratio = report.rows[report.rows.count - 1].seconds / report.rows[report.rows.count - 2].seconds
            report.note(String(format: "%d users: the webhook run took %.2f× the file run's wall time; the receiver "
                               + "(no signature check) used %.1f s of CPU in its last run", users, ratio,
                               result.receiverCPUSeconds))
            try database.drop()
            return
        }
        var day: Int64 = 0
        if rolloutOnly {
            log("\(users) users: first run, then a new rules version")
            _ = logged(try job.run([runArgs(Self.t0)]))
            try measureRollout(database: database, users: users, job: job, day: &day, report: &report, runArgs: runArgs)
            try database.drop()
            return
        }

        // (a) Everyone is new, with no flags, `repeats` times; the notification file of
        // the last is kept for its size. Each run is followed by one load of its floor.
        let notificationFile = scratch + "/notifications.jsonl"
        var firstRuns: [ChildRun] = []
        var firstRunFloor = FloorLoads()
        if warmUp {
            // The cluster's WAL files: a run on a database just created makes them (the
            // measured runs and the floor's loads, which all follow a run, recycle them).
            try database.resetJobTables()
            log("\(users) users: first run 0/\(repeats) (warm-up, not measured), no flags")
            _ = logged(try job.run([runArgs(Self.t0, ["--notifications", notificationFile])]))
        }
        for attempt in 1...repeats {
            try database.resetJobTables()
            try? FileManager.default.removeItem(atPath: notificationFile)
            log("\(users) users: first run \(attempt)/\(repeats), no flags")
            firstRuns += logged(try job.run([runArgs(Self.t0, ["--notifications", notificationFile])]))
            if full {
                try firstRunFloor.load(after: attempt, of: repeats, database: database) {
                    try Floor.Files.dump(database: database, outputs: Self.outputs(ofRun: nil), inputs: [input],
                                         folder: scratch, streams: workers)
                }
            }
        }
        let notificationBytes = (try? FileManager.default.attributesOfItem(atPath: notificationFile)[.size] as? Int) ?? nil
        try? FileManager.default.removeItem(atPath: notificationFile)
        let sizes = try database.tableSizes()
        report.add(Report.Row(scenario: "first run (everyone new)", users: users, config: defaults,
                              runs: firstRuns, floor: firstRunFloor.floor(streams: workers)))
        report.note("\(users) users: database after the first run \(sizes.description(perMillion: users)); "
                    + "notification file \(notificationBytes.map { mebibytes($0) } ?? "?") "
                    + "(\(notificationBytes.map { String(format: "%.0f", Double($0) / Double(users)) } ?? "?") bytes a user)")

        if full {
            // (a) A new rules version: everyone due, `previous` filled; one day apart, each
            // run followed by one load of its floor. Its input is also every user's state
            // and current plan (the history row the state points at: sql/0005 moved the
            // plan out of plan_state).
            let states = Floor.Input(select: """
                SELECT s.*, h.snapshot FROM plan_state s
                LEFT JOIN plan_history h ON h.user_id = s.user_id AND h.plan_date = s.plan_date
                                        AND h.seq = s.history_rows_on_plan_date - 1
                """, userColumn: "s.user_id")
            var rulesRuns: [ChildRun] = []
            var rulesFloor = FloorLoads()
            for attempt in 1...repeats {
                day += 1
                try database.pretendOlderRulesVersion()
                log("\(users) users: rules-change run \(attempt)/\(repeats), no flags")
                rulesRuns += logged(try job.run([runArgs(Self.t0.adding(seconds: day * 86_400), ["--rules-at-once"])]))
                try rulesFloor.load(after: attempt, of: repeats, database: database) {
                    let run = try database.count("SELECT max(run_id)::int AS n FROM plan_runs")
                    return try Floor.Files.dump(database: database, outputs: Self.outputs(ofRun: run),
                                                inputs: [input, states], folder: scratch, streams: workers)
                }
            }
            report.add(Report.Row(scenario: "rules-change run (everyone due)", users: users, config: defaults,
                                  runs: rulesRuns, floor: rulesFloor.floor(streams: workers)))

            // The same on a database in service: `plan_history` with a partition per month
            // for three years (34 older months, each with 2% of the users' plans). Once;
            // the older months go again before the runs below.
            try database.addOlderHistory(months: Self.olderHistoryMonths, usersPerMonth: max(1, users / 50))
            day += 1
            try database.pretendOlderRulesVersion()
            log("\(users) users: rules-change run, \(Self.olderHistoryMonths + 1) months of history, no flags")
            let deep = logged(try job.run([runArgs(Self.t0.adding(seconds: day * 86_400), ["--rules-at-once"])]))
            report.add(Report.Row(scenario: "rules-change run, \(Self.olderHistoryMonths + 1) monthly partitions of history",
                                  users: users, config: defaults, runs: deep, floor: nil))
            try database.dropOlderHistory()

            try measureRollout(database: database, users: users, job: job, day: &day, report: &report,
                               runArgs: runArgs)
        }

        // (b) A typical night: 3% changed their weight the day before.
        day += 1
        let night = Self.t0.adding(seconds: day * 86_400)
        let changed = try database.changeWeights(before: night)
        log("\(users) users: nightly run, \(changed) changed")
        let nightly = try job.run([runArgs(night)])
        let due = try database.count("SELECT due AS n FROM plan_runs ORDER BY run_id DESC LIMIT 1")
        report.add(Report.Row(scenario: "nightly run (\(due) due, ≈3%)", users: users, config: defaults,
                              runs: nightly, floor: nil))

        // (c) Nothing due; (d) one user. Median of five: startup dominates.
        try measureIdleRuns(users: users, after: night, url: local, label: "", job: job, report: &report,
                            runArgs: runArgs)

        if full, proxyDelay > 0 {
            try measureBehindProxy(database: database, users: users, job: job, after: night, report: &report,
                                   runArgs: runArgs)
        }
        if full {
            try database.resetJobTables()
            log("\(users) users: batched peer")
            let seconds = try BatchedPeer.firstRun(database: database, users: users, asOf: Self.t0, zones: zones)
            report.add(Report.Row(scenario: "batched peer: first run, 1,000 users per transaction", users: users,
                                  config: "1 connection, multi-row INSERT", seconds: seconds))
        }
        try database.drop()
        report.note("\(users) users: the whole measurement took \(String(format: "%.0f", timed(since: started))) s "
                    + "(creating the database \(String(format: "%.0f", seeded)) s)")
    }

    /// A new rules version as it ships (plan-rules.md section 2.1): the preview of it
    /// (every user compared; its time and peak memory), then the rollout: the run that
    /// records its start (every user read, each scheduled at their midnight) and the runs of
    /// a 15-minute timer for a day after it, each planning the users whose midnight came;
    /// the largest of those slices and its run are reported.
    private func measureRollout(database: BenchDatabase, users: Int, job: JobBinary, day: inout Int64,
                                report: inout Report, runArgs: (Instant, [String], [String]) -> [String]) throws {
        let local = ["--database-url", database.conninfo]
        day += 1
        let start = Self.t0.adding(seconds: day * 86_400)
        try database.pretendOlderRulesVersion()
        // A new version has no rollout recorded yet (the rules-change runs recorded one).
        try database.forgetRollouts()
        log("\(users) users: preview of a new rules version")
        let preview = logged(try job.run([["preview", "--as-of", start.rfc3339, "--format", "json"] + local]))
        report.add(Report.Row(scenario: "preview of a new rules version (every user compared)", users: users,
                              config: "--format json", runs: preview, floor: nil))

        log("\(users) users: rollout start run")
        let first = logged(try job.run([runArgs(start, [], local)]))
        report.add(Report.Row(scenario: "rollout start run (every user read and scheduled)", users: users,
                              config: "no flags", runs: first, floor: nil))
        var slices: [(planned: Int, run: ChildRun)] = []
        for quarter in 1...(24 * 4 + 1) {
            let run = try job.run([runArgs(start.adding(seconds: Int64(quarter) * 900), [], local)])
            let planned = try database.count(
                "SELECT (created + changed + unchanged)::int AS n FROM plan_runs ORDER BY run_id DESC LIMIT 1")
            slices.append((planned, run[0]))
        }
        let largest = slices.max { $0.planned < $1.planned }!
        let left = try database.count("SELECT count(*)::int AS n FROM plan_state WHERE plan_rules_version IS DISTINCT FROM rules_version AND plan_date IS NOT NULL")
        report.add(Report.Row(scenario: "rollout: the largest midnight slice (\(largest.planned) users)", users: users,
                              config: "a 15-minute timer", runs: [largest.run], floor: nil))
        report.note(String(format: "%d users: the rollout's %d timer runs after its start planned %d users in %.1f s "
                           + "in all (the largest slice %d users, %.2f s; %d runs planned nobody); %d users left on "
                           + "the older version after a day", users, slices.count,
                           slices.reduce(0) { $0 + $1.planned }, slices.reduce(0) { $0 + $1.run.wallSeconds },
                           largest.planned, largest.run.wallSeconds, slices.filter { $0.planned == 0 }.count, left))
    }

    /// Nothing due and a single-user rerun, median of five each.
    ///
    /// The runs are a minute apart: with `--sweep-period 960` each compares a sixteenth of
    /// the ids, as a 15-minute timer does with the default 4-hour period. The same runs
    /// with a period so long that they compare next to nothing give the sweep's own cost.
    private func measureIdleRuns(users: Int, after night: Instant, url: [String], label: String, job: JobBinary,
                                 report: inout Report, runArgs: (Instant, [String], [String]) -> [String]) throws {
        var nothing: [ChildRun] = []
        var withoutSweep: [ChildRun] = []
        var single: [ChildRun] = []
        let start = night.adding(seconds: label.isEmpty ? 0 : 3600)
        for attempt in 1...5 {
            let asOf = start.adding(seconds: Int64(attempt) * 60)
            nothing += try job.run([runArgs(asOf, ["--sweep-period", "960"], url)])
            single += try job.run([runArgs(asOf, ["--user", "\(users / 2)"], url)])
        }
        for attempt in 6...10 {
            withoutSweep += try job.run([runArgs(start.adding(seconds: Int64(attempt) * 60), ["--sweep-period", "100000000"], url)])
        }
        report.add(Report.Row(scenario: "nothing due\(label), a sixteenth of the ids swept (median of 5)", users: users,
                              config: "a 15-minute timer's share", runs: [median(nothing)], floor: nil))
        report.add(Report.Row(scenario: "nothing due\(label), next to no id swept (median of 5)", users: users,
                              config: "--sweep-period 100000000", runs: [median(withoutSweep)], floor: nil))
        report.note(String(format: "%d users\(label): the late-row sweep's own cost per 15-minute run %.0f ms "
                           + "(nothing due with a sixteenth of the ids swept, less with next to none)", users,
                           (median(nothing).wallSeconds - median(withoutSweep).wallSeconds) * 1000))
        report.add(Report.Row(scenario: "single-user rerun `--user`\(label) (median of 5)", users: 1,
                              config: "no flags", runs: [median(single)], floor: nil))
    }

    /// The same runs against a database "1 ms away": through `delay-proxy`, first without
    /// delay (the proxy's own cost), then with `proxyDelay` µs each way.
    private func measureBehindProxy(database: BenchDatabase, users: Int, job: JobBinary, after night: Instant,
                                    report: inout Report, runArgs: (Instant, [String], [String]) -> [String]) throws {
        let delayLabel = String(format: " via proxy, %.1f ms each way", Double(proxyDelay) / 1000)
        // The nightly and idle runs first: they need the state the local runs left.
        try DelayProxy.with(delayMicroseconds: proxyDelay, socketDirectory: database.socketDirectory,
                            port: database.port) { proxy in
            let url = ["--database-url", proxy.conninfo(database: database.name)]
            let nextNight = night.adding(seconds: 86_400)
            let changed = try database.changeWeights(before: nextNight)
            log("\(users) users: nightly run\(delayLabel), \(changed) changed")
            let before = proxy.cpuSeconds()
            let nightly = try job.run([runArgs(nextNight, [], url)])
            let due = try database.count("SELECT due AS n FROM plan_runs ORDER BY run_id DESC LIMIT 1")
            report.add(Report.Row(scenario: "nightly run (\(due) due)\(delayLabel)", users: users, config: "no flags",
                                  runs: nightly, floor: nil, proxyCPUSeconds: proxy.cpuSeconds() - before))
            try measureIdleRuns(users: users, after: nextNight, url: url, label: delayLabel, job: job,
                                report: &report, runArgs: runArgs)
        }
        for delay in [0, proxyDelay] {
            try DelayProxy.with(delayMicroseconds: delay, socketDirectory: database.socketDirectory,
                                port: database.port) { proxy in
                try database.resetJobTables()
                let label = String(format: " via proxy, %.1f ms each way", Double(delay) / 1000)
                log("\(users) users: first run\(label)")
                let before = proxy.cpuSeconds()
                let runs = try job.run([runArgs(Self.t0, [], ["--database-url", proxy.conninfo(database: database.name)])])
                report.add(Report.Row(scenario: "first run (everyone new)\(label)", users: users, config: "no flags",
                                      runs: runs, floor: nil, proxyCPUSeconds: proxy.cpuSeconds() - before))
            }
        }
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

    /// Where the benchmark (and so the job, the floor's clients and the proxy) and the
    /// database server may run, when `run.sh --database-on-its-own-core` pinned them
    /// apart; empty when both may use every CPU.
    private func cpuPlacement() throws -> String {
        let server = try PostgresConnection.connectFromEnvironment()
        let ours = WorkerThreads.allowedCPUList(ofProcess: "self")
        let theirs = WorkerThreads.allowedCPUList(ofProcess: String(server.backendPID))
        guard let ours, let theirs, ours != theirs else { return "" }
        return "; the benchmark, the job, the floor's clients and the proxy on CPUs \(ours), PostgreSQL on CPUs \(theirs)"
    }

    private func serverVersion() throws -> String {
        try PostgresConnection.connectFromEnvironment().query("SELECT current_setting('server_version') AS version", purpose: "reading the version")
            .singleRow().string("version").split(separator: " ").first.map { "PostgreSQL \($0)" } ?? "PostgreSQL"
    }
}

/// The floor's loads of one scenario, one after each of the job's runs: its rows are
/// dumped after the first run (`dump`) and removed after the last.
struct FloorLoads {
    private var files: Floor.Files?
    private var loads: [Floor.Load] = []

    mutating func load(after attempt: Int, of repeats: Int, database: BenchDatabase,
                       dump: () throws -> Floor.Files) throws {
        let files = try self.files ?? dump()
        self.files = files
        log("floor load \(attempt)/\(repeats) (\(files.rowsLoaded) rows, \(files.streams) streams)")
        let load = try files.load(database: database)
        log(String(format: "floor load %d/%d: %.2f s", attempt, repeats, load.seconds)
            + (load.cpuSeconds.map { String(format: ", machine CPU %.1f s", $0) } ?? ""))
        loads.append(load)
        if attempt == repeats { files.remove() }
    }

    /// The median load; nil when none was made.
    func floor(streams: Int) -> Floor? {
        guard let files, !loads.isEmpty else { return nil }
        return Floor(loads: loads, streams: streams, rowsLoaded: files.rowsLoaded)
    }
}

/// `runs`, each one's wall and CPU time logged (the table shows the median).
func logged(_ runs: [ChildRun]) -> [ChildRun] {
    for run in runs {
        log(String(format: "run: %.2f s", run.wallSeconds)
            + (run.jobCPUSeconds.map { String(format: ", job CPU %.1f s", $0) } ?? "")
            + (run.machineCPUSeconds.map { String(format: ", machine CPU %.1f s", $0) } ?? ""))
    }
    return runs
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
}

func timed(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

func mebibytes(_ bytes: Int) -> String {
    bytes >= 1 << 30 ? String(format: "%.2f GiB", Double(bytes) / Double(1 << 30))
        : String(format: "%.0f MiB", Double(bytes) / Double(1 << 20))
}

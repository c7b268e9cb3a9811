import ArgumentParser
import PlanStore

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Applies pending schema migrations (safe to run twice or concurrently).",
        discussion: """
            Applies the job's own migrations (sql/NNNN_*.sql, embedded in the binary) under an \
            advisory lock and records them in plan_regen_migrations, each in its own transaction.

            Expand migrations (the previous release still runs after them) are applied; contract \
            migrations (it does not) wait for --contract, which refuses while a binary that does not \
            know them has run within --older-runs-window. On a database without any of the job's \
            migrations, everything is applied. Each statement waits at most --statement-lock-wait \
            for a lock; a migration that does not get its locks is rolled back and tried again after \
            a growing pause, --attempts times. docs/upgrading.md has the steps of an upgrade.

            Examples:
              plan-regen migrate --status
              plan-regen migrate --dry-run
              plan-regen migrate
              plan-regen migrate --contract
              plan-regen migrate --with-reference-schema   # dev and demo databases

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @ArgumentParser.Flag(help: "Also create the app's reference user_settings table (development, demos, tests).")
    var withReferenceSchema = false

    @ArgumentParser.Flag(help: "Also apply contract migrations (after which older binaries refuse to run).")
    var contract = false

    @Option(help: ArgumentHelp(
        "With --contract: refuse while a binary that does not know a contract migration has started a run within this many hours (0: do not check).",
        valueName: "hours"))
    var olderRunsWindow = 24

    @Option(help: ArgumentHelp("Each statement of a migration waits at most this many seconds for a lock.",
                               valueName: "seconds"))
    var statementLockWait = 2.0

    @Option(help: "Tries per migration when a lock is not granted in time (pauses of 0.5 s, 1 s, 2 s, ... up to 30 s between).")
    var attempts = 8

    @ArgumentParser.Flag(help: "Print the applied, pending and unknown migrations, their kinds, and which binaries can run after migrate; apply nothing.")
    var status = false

    @ArgumentParser.Flag(help: "Print the SQL migrate would apply; apply nothing.")
    var dryRun = false

    func validate() throws {
        if status && dryRun { throw ValidationError("--status and --dry-run: choose one") }
        if olderRunsWindow < 0 { throw ValidationError("--older-runs-window \(olderRunsWindow): hours are 0 or more") }
        if !(statementLockWait > 0) { throw ValidationError("--statement-lock-wait: seconds are more than 0, e.g. 2") }
        if attempts < 1 { throw ValidationError("--attempts \(attempts): at least 1") }
    }

    func run() throws {
        try connection.run("migrate") { logger in
            let database = PlanStore(connection: try connection.connect(), timeouts: connection.timeouts).connection
            // Migrations say through NOTICEs what a DBA must do by hand (0003: grants); the
            // "already exists, skipping" notices of IF NOT EXISTS say nothing to act on.
            database.onNotice = { notice in
                if !notice.hasSuffix(", skipping") { logger.notice("\(notice)") }
            }
            var migrator = Migrator(connection: database)
            migrator.statementLockWait = .milliseconds(Int64(statementLockWait * 1000))
            migrator.attempts = attempts
            migrator.onRetry = { migration, attempt, pause in
                logger.warning("migration waits for a lock; rolled back, trying again", metadata: [
                    "migration": "\(migration)", "attempt": "\(attempt)", "of": "\(attempts)", "pause": "\(pause)"])
            }
            let migrations = (withReferenceSchema ? Migration.reference : []) + Migration.planRegen
            if status || dryRun {
                let report = try migrator.status(of: migrations, contract: contract)
                print(status ? Self.statusText(report, contract: contract) : Self.dryRunText(report), terminator: "")
                return
            }
            var applied: [String] = []
            if withReferenceSchema { applied += try migrator.apply(Migration.reference) }
            applied += try migrator.apply(
                Migration.planRegen,
                contract: contract ? .apply(unlessOlderBinariesRanWithin: .seconds(olderRunsWindow * 3600)) : .wait)
            logger.info("migrations applied", metadata: [
                "applied": "\(applied.isEmpty ? "none (up to date)" : applied.joined(separator: ","))"])
            let waiting = try migrator.status(of: Migration.planRegen, contract: false).entries
                .filter { $0.state == .waitsForContract }.map(\.name)
            if !waiting.isEmpty {
                logger.notice("contract migrations wait: once no older binary runs, `plan-regen migrate --contract` applies them (docs/upgrading.md)",
                              metadata: ["waiting": "\(waiting.joined(separator: ","))"])
            }
            if try UserSettingsIndex.isMissing(on: database) { logger.warning("\(UserSettingsIndex.missingWarning)") }
        }
    }

    static func statusText(_ report: MigrationStatus, contract: Bool) -> String {
        let command = contract ? "migrate --contract" : "migrate"
        var lines = ["plan-regen \(binaryVersion) knows the migrations up to \(Migration.planRegen.last?.name ?? "none")."]
        for entry in report.entries {
            let state: String
            switch entry.state {
            case .applied(let at): state = "applied \(at)"
            case .toApply: state = "pending: \(command) applies it"
            case .waitsForContract: state = "pending: waits for migrate --contract"
            case .unknown(let at): state = "applied \(at) by a newer binary"
            }
            var line = "\(entry.name)  \(entry.kind?.rawValue ?? "unmarked (counts as contract)")  \(state)"
            if let longLock = entry.longLock { line += "  long lock: \(longLock)" }
            lines.append(line)
        }
        let runs = report.oldestLevelThatRuns.map {
            "binaries whose schema level is \($0) or later (plan-regen --version prints it; releases before 1.0.0 refuse any migration they do not know)"
        } ?? "every release from 1.0.0 on (releases before 1.0.0 refuse any migration they do not know)"
        lines.append("After `plan-regen \(command)`: \(report.toApply.count) to apply; can run: \(runs).")
        return lines.joined(separator: "\n") + "\n"
    }

    static func dryRunText(_ report: MigrationStatus) -> String {
        guard !report.toApply.isEmpty else { return "-- plan-regen migrate: nothing to apply\n" }
        return report.toApply.map { migration in
            "-- \(migration.name) (\(migration.kind?.rawValue ?? "unmarked")): one transaction, each statement "
                + "under a short lock_timeout\n\(migration.sql)"
        }.joined(separator: "\n") + "-- plan-regen migrate --dry-run: nothing was applied\n"
    }
}

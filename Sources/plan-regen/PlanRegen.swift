import ArgumentParser
import PlanRules

/// The version of this binary; `plan_runs.binary_version` records it.
let binaryVersion = "0.1.0"

@main
struct PlanRegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan-regen",
        abstract: "Regenerates each user's daily nutrition plan at their local midnight.",
        discussion: """
            Run it every 15 minutes from a timer. Each run reads changed user_settings rows from \
            PostgreSQL, recomputes the plans that are due, writes plan_history rows and emits \
            notification JSON lines on stdout. Logs go to stderr.

            Connection: --database-url, else DATABASE_URL, else the libpq variables \
            (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE, ...).

            Exit codes: 0 done (rejected rows included); 1 fatal error (database unreachable \
            or lost, read-only server, schema out of date, notifications not writable); 3 done, \
            but a --user id has no user_settings row; 4 done, but another run has held user \
            partitions longer than --overlap-limit; 5 done, but the metrics could not be written or pushed; \
            64 usage error; 75 stopped by SIGTERM/SIGINT \
            after committing the batches done.

            Examples:
              plan-regen migrate
              plan-regen run --metrics-file /run/plan-regen/plan-regen.prom
              plan-regen status
              plan-regen history --user 42
              plan-regen explain --user 42
              plan-regen prune --older-than 30d
              plan-regen help run
            """,
        version: "plan-regen \(binaryVersion) (rules \(rulesVersion))",
        subcommands: [RunCommand.self, StatusCommand.self, HistoryCommand.self, ReportCommand.self, ExplainCommand.self, PruneCommand.self,
                      ForgetCommand.self, MigrateCommand.self, SeedDemoCommand.self],
        defaultSubcommand: nil
    )
}

/// Exit codes documented in `--help` and docs/operations.md, "Exit codes and run statuses".
enum ExitCodes {
    static let fatal = ExitCode(1)
    static let unknownUsers = ExitCode(3)
    /// The run completed, but another run has held some of its user partitions for longer
    /// than --overlap-limit: their users are not being processed.
    static let heldTooLong = ExitCode(4)
    /// The run completed, but its metrics could not be written (`--metrics-file`) or pushed
    /// (`--metrics-push`): monitoring would not see it. Logged at error.
    static let metricsNotReported = ExitCode(5)
    /// SIGTERM/SIGINT stopped the run between batches: what was done is committed and
    /// emitted; the next run continues. (EX_TEMPFAIL: try again later.)
    static let stopped = ExitCode(75)
}

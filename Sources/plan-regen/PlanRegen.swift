import ArgumentParser
import PlanRules

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

            Examples:
              plan-regen migrate
              plan-regen run --metrics-file /run/plan-regen/plan-regen.prom
              plan-regen status
              plan-regen history --user 42
              plan-regen explain --user 42
              plan-regen prune --older-than 30d
              plan-regen help run

            """ + ExitCodes.help(ExitCodes.all),
        version: versionLine,
        subcommands: [RunCommand.self, StatusCommand.self, HistoryCommand.self, ReportCommand.self, ExplainCommand.self,
                      PreviewCommand.self, DeliverCommand.self, PruneCommand.self,
                      ForgetCommand.self, MigrateCommand.self, SeedDemoCommand.self],
        defaultSubcommand: nil
    )
}

/// One way a command ends: its code and what it means. `ExitCodes` lists them all; each
/// command's `--help` is written from that list, and docs/operations.md's table matches it
/// (OpsCommandLineTests).
struct ExitStatus: Sendable {
    let code: Int32
    let meaning: String

    var exitCode: ExitCode { ExitCode(code) }
}

/// Every exit status of plan-regen, in one place (docs/operations.md, "Exit codes and run statuses").
enum ExitCodes {
    static let done = ExitStatus(code: 0, meaning: "done (rejected rows and partitions left to other runs included)")
    static let fatal = ExitStatus(code: 1, meaning: "fatal error (database lost, read-only server, schema out of date, ...)")
    /// `status --check`: the job is unhealthy (`StatusReport.problems`).
    static let unhealthy = ExitStatus(code: 2, meaning: "status --check: a scope's latest run failed, or users are overdue")
    static let unknownUsers = ExitStatus(code: 3, meaning: "done, but a --user id is unknown (no settings; for explain, no plan)")
    /// The run completed, but another run has held some of its user partitions for longer
    /// than --overlap-limit: their users are not being processed.
    static let heldTooLong = ExitStatus(code: 4, meaning: "done, but another run has held partitions longer than --overlap-limit")
    /// The run completed and committed, but its metrics could not be written or pushed:
    /// monitoring would not see it. Logged at error.
    static let metricsNotReported = ExitStatus(code: 5, meaning: "done and committed, but --metrics-file or --metrics-push failed")
    /// The run planned and committed everything, but notification lines wait for delivery
    /// (a webhook receiver down or refusing); the next run or `deliver` sends them. Below
    /// 5, 75 and 4, above 3 (docs/operations.md says why).
    static let deliveryPending = ExitStatus(code: 6, meaning: "done and committed, but notifications wait for the webhook receiver")
    static let usage = ExitStatus(code: ExitCode.validationFailure.rawValue, meaning: "usage error, or refused (--as-of far ahead, seed-demo into rows)")
    /// SIGTERM/SIGINT stopped the run between batches: what was done is committed and
    /// emitted; the next run continues. (EX_TEMPFAIL: try again later.)
    static let stopped = ExitStatus(code: 75, meaning: "stopped by SIGTERM/SIGINT after committing the batches done")

    static let all = [done, fatal, unhealthy, unknownUsers, heldTooLong, metricsNotReported, deliveryPending, usage, stopped]
    /// What a command that only reads or writes once can end with.
    static let common = [done, fatal, usage]

    /// The "Exit codes" section of a command's `--help` (lines short enough not to wrap).
    static func help(_ statuses: [ExitStatus]) -> String {
        "\nExit codes:\n" + statuses.map { "  \(String($0.code).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.meaning)" }
            .joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import Operations
import PlanRules
import PlanStore
import ZoneFiles

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Shows the job's state for ops: last runs, due and overdue users, outbox, rejections, versions.",
        discussion: """
            One screen: the latest runs (status, counts, duration), the users due now and those \
            overdue (due for more than 15 minutes) with how long the longest-waiting one has \
            waited past their local midnight, notification lines not yet emitted, rejections of \
            the last 24 hours per field, and the binary, rules, schema and tz database versions. \
            The numbers come from the same queries as the run's metrics.

            Only reads: it works on a hot standby too.

            --check makes it a health check (a probe, a monitoring plugin): after the report, \
            each problem is logged at error and the exit status is 2 when the latest run of \
            some scope (all users, a shard) failed, was abandoned or found partitions held too \
            long, or when users are overdue (due for more than 15 minutes, as in the metrics).

            Examples:
              plan-regen status
              plan-regen status --format json | jq .users.overdue
              plan-regen status --runs 30
              plan-regen status --check > /dev/null   # exit \(ExitCodes.unhealthy.code) when unhealthy

            """ + ExitCodes.help([ExitCodes.done, ExitCodes.fatal, ExitCodes.unhealthy, ExitCodes.usage]))

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Describe the job as of this RFC 3339 instant instead of now.", valueName: "instant"),
            transform: Instant.parse)
    var asOf: Instant?

    @Option(help: ArgumentHelp("How many of the latest runs to list.", valueName: "n"))
    var runs = 10

    @Option(help: ArgumentHelp("text (people) or json (scripts).", valueName: "text|json"))
    var format: Format = .text

    @ArgumentParser.Flag(help: "Exit 2 when a scope's latest run failed or users are overdue (a health check).")
    var check = false

    func validate() throws {
        guard (1...1000).contains(runs) else { throw ValidationError("--runs must be between 1 and 1000") }
    }

    func run() throws {
        try connection.run("status") { logger in
            let store = try connection.openStore(for: .readOnly)
            if store.userSettingsIndexMissing { logger.warning("\(UserSettingsIndex.missingWarning)") }
            let report = try StatusReport.gather(
                from: store, at: asOf ?? wallClockNow(),
                zones: Result { try ZoneDatabase.loadSystem() }, binaryVersion: binaryVersion, runs: runs)
            switch format {
            case .text: print(report.text(), terminator: "")
            case .json: print(try report.json())
            }
            if check, !report.problems.isEmpty {
                for problem in report.problems { logger.error("status check: \(problem)") }
                throw ExitCodes.unhealthy.exitCode
            }
        }
    }
}

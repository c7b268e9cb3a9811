import ArgumentParser
import Operations
import PlanRules

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Prints written plans, newest first: one user's timeline, or a CSV/JSON export.",
        discussion: """
            --format table (the default) prints one user's "Plan Updates" timeline, one line \
            per written plan:

              Mar 1, 2026 — Plan created — Target 2,366 cal  [created; run 1]

            --format csv and --format json (one object per line, with snapshot and diff) work \
            for one user or, without --user, for every user in the date range. Rows stream \
            from the database, so exports of any size use little memory.

            Examples:
              plan-regen history --user 42
              plan-regen history --user 42 --from 2026-01-01 --format json | jq .details
              plan-regen history --from 2026-03-01 --to 2026-03-31 --format csv > plans.csv

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditional,
            help: ArgumentHelp("The user whose plans to print.", valueName: "id"))
    var userID: Int64?

    @OptionGroup var dates: PlanDateRangeOptions

    @Option(help: ArgumentHelp("table, csv or json.", valueName: "format"))
    var format: HistoryFormat = .table

    @Option(help: ArgumentHelp(
        "Numbers and dates of the table in this locale (BCP 47, e.g. de-DE); CSV and JSON never change.",
        valueName: "locale"))
    var locale: ReadableFormat = .standard

    func validate() throws {
        try validateUserIDs(userID.map { [$0] } ?? [])
        if format == .table, userID == nil {
            throw ValidationError("--format table prints one user's timeline: give --user ID, "
                                  + "or use --format csv or json for every user")
        }
    }

    func run() throws {
        try connection.run("history") { _ in
            let report = HistoryReport(range: dates.range(of: userID), format: format, readable: locale)
            try report.write(from: connection.openStore(for: .readOnly), to: .standardOutput())
        }
    }
}

extension HistoryFormat: ExpressibleByArgument {}

import ArgumentParser
import Foundation
import Operations
import PlanRules
import PlanStore

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Writes a self-contained HTML plan report: one user's history, or every user's figures.",
        discussion: """
            The page has calories, protein and water as step lines over the MATADOR phase \
            bands, one marker per written plan (hover or tap: reasons, before → after), the \
            latest weight projection and the "Plan updates" table. It is one file with inline \
            SVG and CSS: no script, font or network; it reads at phone and desktop width and prints.

            Without --user, --from and --to are required: the page counts every user's plans \
            per day by reason, phase switches per day, rejections per field, notifications per \
            type and the distribution of calorie changes, and FILE.csv beside FILE.html holds \
            the same numbers. PostgreSQL aggregates them, so memory stays flat at any user count.

            Examples:
              plan-regen report --user 42 --out user-42.html
              plan-regen report --user 42 --from 2026-03-01 --out spring.html
              plan-regen report --from 2026-03-01 --to 2026-03-31 --out report-2026-03.html

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditional,
            help: ArgumentHelp("The user whose plans to show (without it: every user's figures).", valueName: "id"))
    var userID: Int64?

    @OptionGroup var dates: PlanDateRangeOptions

    @Option(help: ArgumentHelp("The HTML file to write (all users: the CSV goes beside it).", valueName: "file.html"))
    var out: String

    @Option(help: ArgumentHelp("Numbers and dates in this locale (BCP 47, e.g. de-DE).", valueName: "locale"))
    var locale: ReadableFormat = .standard

    func validate() throws {
        try validateUserIDs(userID.map { [$0] } ?? [])
        if userID == nil, dates.from == nil || dates.to == nil {
            throw ValidationError("the all-users report needs --from and --to (e.g. --from 2026-03-01 --to 2026-03-31); "
                                  + "or give --user ID for one user's history")
        }
    }

    func run() throws {
        try connection.run("report") { _ in
            let store = try connection.openStore(for: .readOnly)
            if let userID {
                let range = dates.range(of: userID)
                var page = UserReportPage(userID: userID, readable: locale)
                try store.forEachWrittenPlan(in: range) { page.add($0) }
                try writeOutputFile(page.html(rangeText: range.datesText), to: out, what: "report")
                print("Wrote \(out): \(page.planCount) plans of user \(userID)")
            } else if let from = dates.from, let to = dates.to {
                let page = AllUsersReportPage(figures: try store.planReportFigures(from: from, to: to),
                                              from: from, to: to, readable: locale)
                try writeOutputFile(page.html(), to: out, what: "report")
                try writeOutputFile(page.csv(), to: csvPath, what: "report")
                print("Wrote \(out) and \(csvPath): every user's plans from \(from) to \(to)")
            }
        }
    }

    /// FILE.csv beside FILE.html.
    private var csvPath: String {
        (out.hasSuffix(".html") ? String(out.dropLast(5)) : out) + ".csv"
    }
}

import ArgumentParser
import Foundation
import Operations
import PlanRules
import PlanStore

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Writes one user's plan history as a self-contained HTML page (chart and table).",
        discussion: """
            The page has calories, protein and water as step lines over the MATADOR phase \
            bands, one marker per written plan (hover or tap: reasons, before → after), the \
            latest weight projection and the "Plan updates" table. It is one file with inline \
            SVG and CSS: no script, font or network; it reads at phone and desktop width and prints.

            Examples:
              plan-regen report --user 42 --out user-42.html
              plan-regen report --user 42 --from 2026-03-01 --to 2026-05-31 --out spring.html
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditional,
            help: ArgumentHelp("The user whose plans to show.", valueName: "id"))
    var userID: Int64

    @Option(help: ArgumentHelp("First plan date to include (YYYY-MM-DD).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last plan date to include (YYYY-MM-DD).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("The HTML file to write.", valueName: "file.html"))
    var out: String

    @Option(help: ArgumentHelp("Numbers and dates in this locale (BCP 47, e.g. de-DE).", valueName: "locale"))
    var locale: ReadableFormat = .standard

    func validate() throws {
        try validateUserIDs([userID])
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, LocalDate(iso8601: value) == nil {
                throw ValidationError("\(name): '\(value)' is not a date such as 2026-03-16")
            }
        }
    }

    func run() throws {
        let logger = connection.makeLogger(label: "plan-regen.report")
        do {
            let store = try connection.openStore(for: .readOnly)
            let range = HistoryRange(userID: userID, from: from.flatMap { LocalDate(iso8601: $0) },
                                     to: to.flatMap { LocalDate(iso8601: $0) })
            var page = UserReportPage(userID: userID, readable: locale)
            try store.forEachHistoryRecord(in: range) { try page.add($0) }
            try write(page.html(rangeText: rangeText), to: out)
            print("Wrote \(out): \(page.planCount) plans of user \(userID)")
        } catch {
            throw fail(error, logger: logger)
        }
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("cannot write the report to \(path): \(error.localizedDescription); "
                                  + "check that its folder exists and is writable")
        }
    }

    private var rangeText: String {
        switch (from, to) {
        case let (from?, to?): " from \(from) to \(to)"
        case let (from?, nil): " from \(from)"
        case let (nil, to?): " up to \(to)"
        case (nil, nil): ""
        }
    }
}

import ArgumentParser
import PlanRules

/// `--from` and `--to`, the plan dates `history` and `report` read (inclusive).
struct PlanDateRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("First plan date to include (YYYY-MM-DD).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last plan date to include (YYYY-MM-DD).", valueName: "date"))
    var to: String?

    var fromDate: LocalDate? { from.flatMap { LocalDate(iso8601: $0) } }
    var toDate: LocalDate? { to.flatMap { LocalDate(iso8601: $0) } }

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, LocalDate(iso8601: value) == nil {
                throw ValidationError("\(name): '\(value)' is not a date such as 2026-03-16")
            }
        }
    }

    /// " from 2026-03-01 to 2026-03-31", " up to …", or "" for messages about the range.
    var text: String {
        switch (from, to) {
        case let (from?, to?): " from \(from) to \(to)"
        case let (from?, nil): " from \(from)"
        case let (nil, to?): " up to \(to)"
        case (nil, nil): ""
        }
    }
}

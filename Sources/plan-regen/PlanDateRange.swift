import ArgumentParser
import PlanRules
import PlanStore

/// `--from` and `--to`, the plan dates `history` and `report` read (inclusive).
struct PlanDateRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("First plan date to include (YYYY-MM-DD).", valueName: "date"), transform: LocalDate.parse)
    var from: LocalDate?

    @Option(help: ArgumentHelp("Last plan date to include (YYYY-MM-DD).", valueName: "date"), transform: LocalDate.parse)
    var to: LocalDate?

    /// The plans of `userID` (nil: every user) between the dates.
    func range(of userID: Int64?) -> HistoryRange {
        HistoryRange(userID: userID, from: from, to: to)
    }
}

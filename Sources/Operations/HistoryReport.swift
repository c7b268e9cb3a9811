import LineOutput
import PlanRules
import PlanStore

/// What `plan-regen history` prints: the plans of `range`, newest first, as `format` —
/// streamed from the store through a `HistoryPrinter`, so exports of any size use little
/// memory — and, for a timeline that has none, a line saying so.
public struct HistoryReport: Sendable {
    public var range: HistoryRange
    public var format: HistoryFormat
    /// Numbers and dates of the timeline (`--locale`); CSV and JSON never change with it.
    public var readable: ReadableFormat

    public init(range: HistoryRange, format: HistoryFormat, readable: ReadableFormat = .standard) {
        self.range = range
        self.format = format
        self.readable = readable
    }

    public func write(from store: PlanStore, to output: LineWriter) throws {
        let who = range.userID.map { "user \($0)" } ?? "all users"
        var printer = try HistoryPrinter(format: format, output: output, title: "Plan updates for \(who), newest first",
                                         readable: readable)
        try store.forEachWrittenPlan(in: range) { try printer.add($0) }
        try printer.finish(emptyMessage: "No written plans for \(who)\(range.datesText).")
    }
}

extension HistoryRange {
    /// " from 2026-03-01 to 2026-03-31", " up to …", or "" for messages about the range.
    public var datesText: String {
        switch (from, to) {
        case let (from?, to?): " from \(from) to \(to)"
        case let (from?, nil): " from \(from)"
        case let (nil, to?): " up to \(to)"
        case (nil, nil): ""
        }
    }
}

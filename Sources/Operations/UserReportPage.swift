import PlanJSON
import PlanRules
import PlanStore

/// One user's plan history as a self-contained HTML page (`plan-regen report --user`):
/// calories, protein and water as step lines over MATADOR phase bands, one marker per
/// written plan (its `<title>` is the tooltip: reasons and before → after values), the
/// latest weight projection, and the "Plan Updates" table below.
///
/// The chart is inline SVG written here, so the page needs no script, font or network and
/// scales with its `viewBox` from phone to desktop width and to paper.
public struct UserReportPage {
    private struct Plan {
        var record: HistoryRecord
        var summary: PlanChangeSummary
        var projectedDate: String?
        var targetDate: String?
        var targetWeight: String?
    }

    private let userID: Int64
    private let readable: ReadableFormat
    private var plans: [Plan] = []

    public init(userID: Int64, readable: ReadableFormat = .standard) {
        self.userID = userID
        self.readable = readable
    }

    /// Number of plans added so far.
    public var planCount: Int { plans.count }

    /// Adds one written plan of the user (any order; one user's history is small).
    public mutating func add(_ record: HistoryRecord) throws {
        let snapshot = try? JSONValue(parsing: record.snapshotJSON)
        plans.append(Plan(
            record: record, summary: try HistoryPrinter.summary(of: record, readable: readable),
            projectedDate: snapshot?["projection"]?["projected_date"].flatMap(Self.text),
            targetDate: snapshot?["inputs"]?["target_date"].flatMap(Self.text),
            targetWeight: snapshot?["inputs"]?["target_weight_kg"].flatMap(Self.text)))
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): number.text
        default: nil
        }
    }

    /// The whole page; `rangeText` says which dates were asked for (" from 2026-03-01").
    public func html(rangeText: String) -> String {
        let ordered = plans.sorted { ($0.record.planDate, $0.record.seq) < ($1.record.planDate, $1.record.seq) }
        let title = "Plan report for user \(userID)"
        var body = "<h1>\(escape(title))</h1>\n"
        if ordered.isEmpty {
            body += "<p class=\"empty\">No written plans for user \(userID)\(escape(rangeText)).</p>\n"
        } else {
            body += outlook(ordered)
            body += chart(ordered)
            body += table(ordered)
        }
        return ReportStyle.page(title: title, body: body)
    }

    private func outlook(_ ordered: [Plan]) -> String {
        guard let latest = ordered.last else { return "" }
        func date(_ text: String?) -> String {
            text.flatMap { LocalDate(iso8601: $0) }.map { readable.timelineDate($0) } ?? "none"
        }
        return """
            <p class="outlook">Latest plan \(escape(readable.timelineDate(latest.record.planDate))): \
            weight \(escape(latest.record.weightKgReported)) kg, target \(escape(latest.targetWeight ?? "none")) kg \
            by <span class="target-date">\(escape(date(latest.targetDate)))</span>; \
            projected to reach it <span class="projected-date">\(escape(date(latest.projectedDate)))</span>.</p>

            """
    }

    // MARK: chart

    private static let width = 800.0
    private static let left = 60.0
    private static let right = 20.0
    private static let panelHeight = 130.0
    private static let gap = 30.0
    private static let top = 20.0

    private func chart(_ ordered: [Plan]) -> String {
        let first = ordered[0].record.planDate
        let last = ordered[ordered.count - 1].record.planDate
        let days = Double(max(1, last.days(since: first) + 1))
        let plotWidth = Self.width - Self.left - Self.right
        func x(_ date: LocalDate) -> Double { Self.left + Double(date.days(since: first)) / days * plotWidth }
        let end = Self.left + plotWidth
        let series: [(name: String, unit: String, css: String, value: (HistoryRecord) -> Int)] = [
            ("Calories", "cal", "calories", { $0.calories }),
            ("Protein", "g", "protein", { $0.proteinG }),
            ("Water", "ml", "water", { $0.waterMl }),
        ]
        let height = Self.top + Double(series.count) * (Self.panelHeight + Self.gap)
        var svg = """
            <figure class="chart">
            <svg viewBox="0 0 \(Self.width) \(height)" role="img" aria-label="Calories, protein and water over time">

            """
        // Phase bands: one per run of consecutive plans in the same deficit/maintenance phase.
        var runStart = 0
        for index in ordered.indices {
            let phase = ordered[index].record.phase
            let isLast = index == ordered.count - 1 || ordered[index + 1].record.phase != phase
            guard isLast else { continue }
            if phase == "deficit" || phase == "maintenance" {
                let from = x(ordered[runStart].record.planDate)
                let to = index == ordered.count - 1 ? end : x(ordered[index + 1].record.planDate)
                svg += "<rect class=\"phase-band \(phase)\" x=\"\(f(from))\" y=\"\(Self.top)\" "
                    + "width=\"\(f(max(1, to - from)))\" height=\"\(f(height - Self.top - Self.gap / 2))\">"
                    + "<title>\(escape(phase.capitalized)) phase from "
                    + "\(escape(readable.timelineDate(ordered[runStart].record.planDate)))</title></rect>\n"
            }
            runStart = index + 1
        }
        for (panel, line) in series.enumerated() {
            let panelTop = Self.top + Double(panel) * (Self.panelHeight + Self.gap)
            let values = ordered.map { line.value($0.record) }
            let low = Double(values.min()!), high = Double(values.max()!)
            let span = max(1, high - low)
            func y(_ value: Int) -> Double {
                high == low ? panelTop + Self.panelHeight / 2  // a flat line sits mid-panel
                    : panelTop + 10 + (1 - (Double(value) - low) / span) * (Self.panelHeight - 20)
            }
            var points: [String] = []
            for (index, plan) in ordered.enumerated() {
                let value = line.value(plan.record)
                if index > 0 { points.append("\(f(x(plan.record.planDate))),\(f(y(values[index - 1])))") }
                points.append("\(f(x(plan.record.planDate))),\(f(y(value)))")
            }
            points.append("\(f(end)),\(f(y(values[values.count - 1])))")
            svg += "<text class=\"axis\" x=\"4\" y=\"\(f(panelTop + 4))\">\(line.name) (\(line.unit))</text>\n"
            svg += "<text class=\"axis\" x=\"\(f(Self.left - 4))\" y=\"\(f(y(Int(high)) + 4))\" text-anchor=\"end\">"
                + "\(readable.integer(Int(high)))</text>\n"
            if high != low {
                svg += "<text class=\"axis\" x=\"\(f(Self.left - 4))\" y=\"\(f(y(Int(low)) + 4))\" text-anchor=\"end\">"
                    + "\(readable.integer(Int(low)))</text>\n"
            }
            svg += "<polyline class=\"step \(line.css)\" points=\"\(points.joined(separator: " "))\"/>\n"
            if panel == 0 {
                for plan in ordered {
                    let tip = "\(readable.timelineDate(plan.record.planDate)) — \(plan.summary.event) — "
                        + "\(plan.summary.details) [\(plan.record.reasons.joined(separator: ", "))]"
                    svg += "<circle class=\"marker\" cx=\"\(f(x(plan.record.planDate)))\" "
                        + "cy=\"\(f(y(plan.record.calories)))\" r=\"5\"><title>\(escape(tip))</title></circle>\n"
                }
            }
        }
        let axisY = height - Self.gap / 2 + 12
        svg += "<text class=\"axis\" x=\"\(Self.left)\" y=\"\(f(axisY))\">\(escape(readable.timelineDate(first)))</text>\n"
        svg += "<text class=\"axis\" x=\"\(f(end))\" y=\"\(f(axisY))\" text-anchor=\"end\">"
            + "\(escape(readable.timelineDate(last)))</text>\n"
        svg += "</svg>\n<figcaption>Step lines: calories, protein and water of each written plan; shaded: "
            + "<span class=\"key deficit\">deficit</span> and <span class=\"key maintenance\">maintenance</span> "
            + "phases; dots: plan changes (hover or tap for reasons and before → after values).</figcaption>\n"
            + "</figure>\n"
        return svg
    }

    // MARK: table

    private func table(_ ordered: [Plan]) -> String {
        var html = """
            <h2>Plan updates</h2>
            <table class="updates">
            <thead><tr><th>Date</th><th>Event</th><th>Details</th><th>Reasons</th><th>Phase</th><th>Projected</th></tr></thead>
            <tbody>

            """
        for plan in ordered.reversed() {
            let rerun = plan.record.seq > 0 ? ", rerun \(plan.record.seq)" : ""
            let projected = plan.projectedDate.flatMap { LocalDate(iso8601: $0) }.map { readable.timelineDate($0) } ?? "—"
            html += "<tr class=\"update\"><td>\(escape(readable.timelineDate(plan.record.planDate)))</td>"
                + "<td>\(escape(plan.summary.event))</td><td>\(escape(plan.summary.details))</td>"
                + "<td>\(escape(plan.record.reasons.joined(separator: ", ") + rerun))</td>"
                + "<td>\(escape(plan.record.phase))</td><td>\(escape(projected))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}

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
        var written: WrittenPlan
        var summary: PlanChangeSummary
        var reasons: String { written.snapshot.reasons.map(\.rawValue).joined(separator: ", ") }
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
    public mutating func add(_ plan: WrittenPlan) {
        plans.append(Plan(written: plan, summary: HistoryPrinter.summary(of: plan, readable: readable)))
    }

    /// The whole page; `rangeText` says which dates were asked for (" from 2026-03-01").
    public func html(rangeText: String) -> String {
        let ordered = plans.sorted { ($0.written.planDate, $0.written.seq) < ($1.written.planDate, $1.written.seq) }
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
        guard let latest = ordered.last?.written.snapshot else { return "" }
        // Validated weights (at most 500 kg) have no thousands to group.
        let weight = fixedPoint(latest.inputs.weightReportedTenthsKg, decimals: 1)
        let targetWeight = latest.inputs.targetWeightTenthsKg.map { fixedPoint($0, decimals: 1) } ?? "none"
        let targetDate = latest.inputs.targetDate.map { readable.timelineDate($0) } ?? "none"
        let projection = latest.projection.projectedDate.map {
            "projected to reach it <span class=\"projected-date\">\(escape(readable.timelineDate($0)))</span>"
        } ?? "no projected date"
        return """
            <p class="outlook">Latest plan \(escape(readable.timelineDate(latest.planDate))): \
            weight \(escape(weight)) kg, target \(escape(targetWeight)) kg \
            by <span class="target-date">\(escape(targetDate))</span>; \(projection).</p>

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
        let first = ordered[0].written.planDate
        let last = ordered[ordered.count - 1].written.planDate
        let days = Double(max(1, last.days(since: first) + 1))
        let plotWidth = Self.width - Self.left - Self.right
        func x(_ date: LocalDate) -> Double { Self.left + Double(date.days(since: first)) / days * plotWidth }
        let end = Self.left + plotWidth
        let series: [(name: String, unit: String, css: String, value: (Snapshot.Targets) -> Int)] = [
            ("Calories", "cal", "calories", \.calories),
            ("Protein", "g", "protein", \.proteinG),
            ("Water", "ml", "water", \.waterMl),
        ]
        let height = Self.top + Double(series.count) * (Self.panelHeight + Self.gap)
        var svg = """
            <figure class="chart">
            <svg viewBox="0 0 \(Self.width) \(height)" role="img" aria-label="Calories, protein and water over time">

            """
        // Phase bands: one per run of consecutive plans in the same deficit/maintenance phase.
        var runStart = 0
        for index in ordered.indices {
            let phase = ordered[index].written.snapshot.phase.phase
            let isLast = index == ordered.count - 1 || ordered[index + 1].written.snapshot.phase.phase != phase
            guard isLast else { continue }
            if phase != .none {
                let from = x(ordered[runStart].written.planDate)
                let to = index == ordered.count - 1 ? end : x(ordered[index + 1].written.planDate)
                svg += "<rect class=\"phase-band \(phase.rawValue)\" x=\"\(f(from))\" y=\"\(Self.top)\" "
                    + "width=\"\(f(max(1, to - from)))\" height=\"\(f(height - Self.top - Self.gap / 2))\">"
                    + "<title>\(escape(phase.rawValue.capitalized)) phase from "
                    + "\(escape(readable.timelineDate(ordered[runStart].written.planDate)))</title></rect>\n"
            }
            runStart = index + 1
        }
        for (panel, line) in series.enumerated() {
            let panelTop = Self.top + Double(panel) * (Self.panelHeight + Self.gap)
            let values = ordered.map { line.value($0.written.snapshot.targets) }
            let low = Double(values.min()!), high = Double(values.max()!)
            let span = max(1, high - low)
            func y(_ value: Int) -> Double {
                high == low ? panelTop + Self.panelHeight / 2  // a flat line sits mid-panel
                    : panelTop + 10 + (1 - (Double(value) - low) / span) * (Self.panelHeight - 20)
            }
            var points: [String] = []
            for (index, plan) in ordered.enumerated() {
                let value = line.value(plan.written.snapshot.targets)
                if index > 0 { points.append("\(f(x(plan.written.planDate))),\(f(y(values[index - 1])))") }
                points.append("\(f(x(plan.written.planDate))),\(f(y(value)))")
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
                    let tip = "\(readable.timelineDate(plan.written.planDate)) — \(plan.summary.event) — "
                        + "\(plan.summary.details) [\(plan.reasons)]"
                    svg += "<circle class=\"marker\" cx=\"\(f(x(plan.written.planDate)))\" "
                        + "cy=\"\(f(y(plan.written.snapshot.targets.calories)))\" r=\"5\"><title>\(escape(tip))</title></circle>\n"
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
            let rerun = plan.written.seq > 0 ? ", rerun \(plan.written.seq)" : ""
            let projected = plan.written.snapshot.projection.projectedDate.map { readable.timelineDate($0) } ?? "—"
            html += "<tr class=\"update\"><td>\(escape(readable.timelineDate(plan.written.planDate)))</td>"
                + "<td>\(escape(plan.summary.event))</td><td>\(escape(plan.summary.details))</td>"
                + "<td>\(escape(plan.reasons + rerun))</td>"
                + "<td>\(escape(plan.written.snapshot.phase.phase.rawValue))</td><td>\(escape(projected))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}

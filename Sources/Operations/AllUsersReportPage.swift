import PlanRules
import PlanStore

/// Every user's plans between two dates as a self-contained HTML page (`plan-regen report
/// --from --to`) and the same numbers as CSV: plans per day by reason, phase switches per
/// day, rejections per field, notifications per type, the distribution of calorie changes.
///
/// The figures arrive aggregated by PostgreSQL, so the page is small whatever the user count.
public struct AllUsersReportPage {
    private let figures: PlanReportFigures
    private let from: LocalDate
    private let to: LocalDate
    private let readable: ReadableFormat

    public init(figures: PlanReportFigures, from: LocalDate, to: LocalDate, readable: ReadableFormat = .standard) {
        self.figures = figures
        self.from = from
        self.to = to
        self.readable = readable
    }

    /// One row per number: `section,day,key,count` (day empty where a figure has none).
    /// Dates ISO, numbers plain, so a spreadsheet or pandas reads it the same in any locale.
    public func csv() -> String {
        var rows = ["section,day,key,count"]
        func add(_ section: String, _ day: String, _ key: String, _ count: Int) {
            rows.append([section, day, key, "\(count)"].map(HistoryPrinter.csvField).joined(separator: ","))
        }
        for entry in figures.plansByReason { add("plans_by_reason", entry.day.description, entry.key, entry.count) }
        for entry in figures.phaseSwitches { add("phase_switches", entry.day.description, entry.key, entry.count) }
        for (field, count) in figures.rejectionsByField.sorted(by: { $0.key < $1.key }) {
            add("rejections_by_field", "", field, count)
        }
        for (type, count) in figures.notificationsByType.sorted(by: { $0.key < $1.key }) {
            add("notifications_by_type", "", type, count)
        }
        for entry in figures.calorieChanges { add("calorie_change", "", "\(entry.bucket)", entry.count) }
        return rows.joined(separator: "\n") + "\n"
    }

    public func html() -> String {
        let title = "Plan report, all users, \(readable.timelineDate(from)) – \(readable.timelineDate(to))"
        let days = from.distance(to: to) >= 0 ? Array(from...to) : []
        var body = "<h1>\(escape(title))</h1>\n"
        let total = figures.plansByReason.reduce(0) { $0 + $1.count }
        body += "<p class=\"outlook\">Plan reasons counted: \(readable.integer(total)) (a plan with two reasons "
            + "counts under each). The same numbers are in the CSV file beside this page.</p>\n"

        body += "<h2>Plans written per day, by reason</h2>\n"
        body += perDayChart(figures.plansByReason, days: days, css: "plans")
        body += perDayTable(figures.plansByReason, days: days)
        body += "<h2>Phase switches per day</h2>\n"
        body += perDayChart(figures.phaseSwitches, days: days, css: "switches")
        body += perDayTable(figures.phaseSwitches, days: days)
        body += "<h2>Rejections per field</h2>\n"
        body += keyTable(figures.rejectionsByField.sorted { $0.key < $1.key }, header: "Field")
        body += "<h2>Notifications per type</h2>\n"
        body += keyTable(figures.notificationsByType.sorted { $0.key < $1.key }, header: "Type")
        body += "<h2>Calorie changes (after − before, per \(PlanReportFigures.calorieBucketWidth) cal)</h2>\n"
        let buckets = figures.calorieChanges.map { entry in
            (label: "\(entry.bucket >= 0 ? "+" : "")\(readable.integer(entry.bucket))", count: entry.count)
        }
        body += ReportStyle.barChart(buckets, css: "calorie-change", unit: "plans", readable: readable)
        body += keyTable(buckets.map { (key: $0.label, value: $0.count) }, header: "Change from (cal)")
        return ReportStyle.page(title: title, body: body)
    }

    /// One bar per day (its height the day's total), the keys of the day in its tooltip.
    private func perDayChart(_ counts: [PlanReportFigures.DayCount], days: [LocalDate], css: String) -> String {
        let byDay = Dictionary(grouping: counts, by: \.day)
        let bars = days.map { day in
            let entries = byDay[day] ?? []
            let keys = entries.map { "\($0.key) \(readable.integer($0.count))" }.joined(separator: ", ")
            return (label: readable.timelineDate(day) + (keys.isEmpty ? "" : ": " + keys),
                    count: entries.reduce(0) { $0 + $1.count })
        }
        return ReportStyle.barChart(bars, css: css, unit: nil, readable: readable)
    }

    private func perDayTable(_ counts: [PlanReportFigures.DayCount], days: [LocalDate]) -> String {
        let keys = Array(Set(counts.map(\.key))).sorted()
        guard !keys.isEmpty else { return "<p class=\"empty\">None in this range.</p>\n" }
        var cells: [LocalDate: [String: Int]] = [:]
        for entry in counts { cells[entry.day, default: [:]][entry.key] = entry.count }
        var html = "<table class=\"figures\"><thead><tr><th>Date</th>"
            + keys.map { "<th class=\"number\">\(escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for day in days where cells[day] != nil {
            html += "<tr><td>\(escape(readable.timelineDate(day)))</td>"
                + keys.map { "<td class=\"number\">\(readable.integer(cells[day]?[$0] ?? 0))</td>" }.joined()
                + "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    private func keyTable(_ rows: [(key: String, value: Int)], header: String) -> String {
        ReportStyle.table(headers: [header, "Count"], rows: rows.map { [$0.key, readable.integer($0.value)] },
                          empty: "None in this range.")
    }
}

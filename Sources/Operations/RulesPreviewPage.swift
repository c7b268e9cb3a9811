import PlanRules

extension RulesPreview {
    /// The preview as a self-contained page in the report's style (`preview --out
    /// FILE.html`), for the people who sign a rules change off: the users changing, the
    /// distribution of the calorie changes as a chart (every bucket from the smallest change
    /// to the largest, empty ones included, so the chart's width is the range), and the
    /// tables of the text output.
    public func html(readable: ReadableFormat = .standard) -> String {
        let title = "Rules preview: \(rulesVersion) if its rollout started at \(at)"
        var body = "<h1>\(escape(title))</h1>\n"
        body += "<p class=\"outlook\">Binary \(escape(binaryVersion)). Users under older rules: "
            + "\(readable.integer(usersCompared)); their plans change for \(readable.integer(usersChanging)) "
            + "and stay for \(readable.integer(usersUnchanged)). Users on newer rules, not compared: "
            + "\(readable.integer(usersOnNewerRules)). Each user is evaluated at the local midnight the rollout "
            + "would reach them.</p>\n"

        let width = Self.calorieBucketWidth
        body += "<h2>Calorie changes (after − before, per \(width) cal)</h2>\n"
        let plansPerBucket = Dictionary(uniqueKeysWithValues: calorieDeltas.map { ($0.from, $0.plans) })
        if let first = calorieDeltas.first?.from, let last = calorieDeltas.last?.from {
            let bars = stride(from: first, through: last, by: width).map { from in
                (label: "\(from >= 0 ? "+" : "")\(readable.integer(from)) to \(readable.integer(from + width - 1)) cal",
                 count: plansPerBucket[from] ?? 0)
            }
            body += ReportStyle.barChart(bars, css: "calorie-change", unit: "plans", readable: readable)
        } else {
            body += "<p class=\"empty\">No calorie target changes.</p>\n"
        }

        body += "<h2>Changes per field (after − before)</h2>\n"
        body += ReportStyle.table(
            headers: ["Field", "Plans changing", "Min", "p5", "Median", "p95", "Max"],
            rows: fields.map { field in
                [field.field, readable.integer(field.changed)]
                    + [field.min, field.p5, field.median, field.p95, field.max].map { $0.map(readable.integer) ?? "–" }
            }, empty: "No field changes.")

        body += "<h2>Notifications that would go out</h2>\n"
        body += ReportStyle.table(
            headers: ["Type", "Locale", "Notifications"],
            rows: notifications.sorted { $0.key < $1.key }.flatMap { type, locales in
                locales.sorted { $0.key < $1.key }.map { [type, $0.key, readable.integer($0.value)] }
            }, textColumns: 2, empty: "None.")

        body += "<h2>Rows the new rules reject, per field</h2>\n"
        body += ReportStyle.table(headers: ["Field", "Users"],
                                  rows: rejections.sorted { $0.key < $1.key }.map { [$0.key, readable.integer($0.value)] },
                                  empty: "None.")

        body += "<h2>The \(largestCalorieChanges.count) largest calorie changes</h2>\n"
        body += ReportStyle.table(
            headers: ["User", "Before (cal)", "After (cal)", "Change (cal)"],
            rows: largestCalorieChanges.map { change in
                let delta = change.after - change.before
                return [String(change.userID), readable.integer(change.before), readable.integer(change.after),
                        (delta > 0 ? "+" : "") + readable.integer(delta)]
            }, empty: "None.")
        return ReportStyle.page(title: title, body: body)
    }
}

import PlanRules

/// Two decimals at most, so the SVG stays short.
func f(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}

/// Text and attribute values of the page, HTML-escaped.
func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(character)
        }
    }
    return out
}

/// The page around a report: inline CSS only (phone, desktop, print), no script.
enum ReportStyle {
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 1rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
        h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; }
        figure { margin: 1rem 0; }
        .chart svg { width: 100%; height: auto; display: block; }
        .phase-band.deficit, .key.deficit { fill: #fde2e2; background: #fde2e2; }
        .phase-band.maintenance, .key.maintenance { fill: #dff3e4; background: #dff3e4; }
        .step { fill: none; stroke-width: 2; }
        .step.calories { stroke: #c0392b; } .step.protein { stroke: #2c6fbb; } .step.water { stroke: #1a9c9c; }
        .marker { fill: #fff; stroke: #c0392b; stroke-width: 2; }
        .bar { fill: #2c6fbb; } .calorie-change .bar { fill: #c0392b; } .switches .bar { fill: #1a9c9c; }
        .axis { font-size: 13px; fill: #555; }
        figcaption { font-size: 0.85rem; color: #555; }
        table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
        th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.4rem; text-align: left; vertical-align: top; }
        td.number, th.number { text-align: right; }
        @media (max-width: 600px) {
          body { padding: 0 0.4rem; font-size: 0.95rem; }
          table { font-size: 0.8rem; }
          .updates th:nth-child(5), .updates td:nth-child(5), .updates th:nth-child(6), .updates td:nth-child(6) { display: none; }
        }
        @media print {
          body { max-width: none; margin: 0; }
          .chart { break-inside: avoid; }
          tr { break-inside: avoid; }
          .phase-band, .key { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
        }
        </style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    /// Vertical bars scaled to the largest, each with its label and count as tooltip; the
    /// first and last labels (up to a colon) under the axis.
    static func barChart(_ bars: [(label: String, count: Int)], css: String, unit: String?,
                         readable: ReadableFormat) -> String {
        guard !bars.isEmpty else { return "" }
        let width = 800.0, height = 200.0, left = 50.0, bottom = 20.0
        let highest = max(1, bars.map(\.count).max() ?? 1)
        let slot = (width - left) / Double(bars.count)
        var svg = "<figure class=\"chart\"><svg class=\"\(css)\" viewBox=\"0 0 \(width) \(height + bottom)\" role=\"img\">\n"
        svg += "<text class=\"axis\" x=\"\(f(left - 4))\" y=\"14\" text-anchor=\"end\">\(readable.integer(highest))</text>\n"
        svg += "<text class=\"axis\" x=\"\(f(left - 4))\" y=\"\(f(height))\" text-anchor=\"end\">0</text>\n"
        for (index, bar) in bars.enumerated() {
            let barHeight = Double(bar.count) / Double(highest) * (height - 10)
            let tip = "\(bar.label) — \(readable.integer(bar.count))\(unit.map { " " + $0 } ?? "")"
            svg += "<rect class=\"bar\" x=\"\(f(left + Double(index) * slot + slot * 0.1))\" "
                + "y=\"\(f(height - barHeight))\" width=\"\(f(max(0.5, slot * 0.8)))\" height=\"\(f(barHeight))\">"
                + "<title>\(escape(tip))</title></rect>\n"
        }
        func shortLabel(_ label: String) -> String {
            label.split(separator: ":", maxSplits: 1).first.map(String.init) ?? label
        }
        if let first = bars.first, let last = bars.last {
            svg += "<text class=\"axis\" x=\"\(f(left))\" y=\"\(f(height + 16))\">\(escape(shortLabel(first.label)))</text>\n"
            svg += "<text class=\"axis\" x=\"\(f(width))\" y=\"\(f(height + 16))\" text-anchor=\"end\">"
                + "\(escape(shortLabel(last.label)))</text>\n"
        }
        return svg + "</svg></figure>\n"
    }

    /// A table of figures: the first `textColumns` columns text, the others numbers
    /// (right-aligned); cells are escaped here. Without rows, `empty` as a paragraph.
    static func table(headers: [String], rows: [[String]], textColumns: Int = 1, empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(escape(empty))</p>\n" }
        func cells(_ values: [String], _ tag: String) -> String {
            values.enumerated().map { index, value in
                "<\(tag)\(index < textColumns ? "" : " class=\"number\"")>\(escape(value))</\(tag)>"
            }.joined()
        }
        return "<table class=\"figures\"><thead><tr>\(cells(headers, "th"))</tr></thead><tbody>\n"
            + rows.map { "<tr>\(cells($0, "td"))</tr>\n" }.joined()
            + "</tbody></table>\n"
    }
}

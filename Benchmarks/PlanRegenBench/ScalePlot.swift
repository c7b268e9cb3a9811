import Foundation

/// The plot of docs/performance.md: the first run's users/s and peak RSS against the number of users,
/// on a log scale of N, as a self-contained SVG (no plotting package on this machine).
struct ScalePlot {
    let points: [(users: Int, usersPerSecond: Double, rssMB: Double)]

    init(rows: [Report.Row]) {
        points = rows.filter { $0.scenario == "first run (everyone new)" }
            .map { ($0.users, $0.usersPerSecond, Double($0.rssBytes ?? 0) / 1_048_576) }
            .sorted { $0.users < $1.users }
    }

    /// The first-run rows of tables this benchmark printed (`--markdown`), so sizes
    /// measured in separate invocations (10M apart from 100k and 1M) share one plot.
    init(markdownTables: [String]) {
        points = markdownTables.flatMap { $0.split(separator: "\n") }.compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 5, cells[0] == "first run (everyone new)",
                  let users = Int(cells[1].replacing(",", with: "")),
                  let rate = Double(cells[4].replacing(",", with: "")),
                  let rss = Double(cells[5].replacing(" MB", with: "")) else { return nil }
            return (users, rate, rss)
        }.sorted { $0.users < $1.users }
    }

    var svg: String {
        let width = 640.0, height = 360.0, left = 70.0, right = 70.0, top = 40.0, bottom = 50.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let logs = points.map { log10(Double($0.users)) }
        let minLog = (logs.min() ?? 4).rounded(.down), maxLog = max((logs.max() ?? 7).rounded(.up), minLog + 1)
        let maxRate = niceCeiling(points.map(\.usersPerSecond).max() ?? 1)
        let maxRSS = niceCeiling(max(150, points.map(\.rssMB).max() ?? 1))
        func x(_ users: Int) -> Double { left + (log10(Double(users)) - minLog) / (maxLog - minLog) * plotWidth }
        func yRate(_ v: Double) -> Double { top + plotHeight * (1 - v / maxRate) }
        func yRSS(_ v: Double) -> Double { top + plotHeight * (1 - v / maxRSS) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(width / 2))" y="20" text-anchor="middle" font-size="14">plan-regen first run, no flags: \
            users/s (blue) and peak RSS (orange) against users</text>
            <line x1="\(f(left))" y1="\(f(top + plotHeight))" x2="\(f(left + plotWidth))" y2="\(f(top + plotHeight))" stroke="black"/>
            <line x1="\(f(left))" y1="\(f(top))" x2="\(f(left))" y2="\(f(top + plotHeight))" stroke="#1f77b4"/>
            <line x1="\(f(left + plotWidth))" y1="\(f(top))" x2="\(f(left + plotWidth))" y2="\(f(top + plotHeight))" stroke="#ff7f0e"/>

            """
        for exponent in Int(minLog)...Int(maxLog) {
            let users = Int(pow(10, Double(exponent)))
            svg += "<text x=\"\(f(x(users)))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\">\(grouped(users))</text>\n"
        }
        svg += "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 8))\" text-anchor=\"middle\">users (log scale)</text>\n"
        for step in 0...4 {
            let rate = maxRate * Double(step) / 4, rss = maxRSS * Double(step) / 4
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(yRate(rate) + 4))\" text-anchor=\"end\" fill=\"#1f77b4\">\(grouped(Int(rate)))</text>\n"
            svg += "<text x=\"\(f(left + plotWidth + 6))\" y=\"\(f(yRSS(rss) + 4))\" fill=\"#ff7f0e\">\(Int(rss)) MB</text>\n"
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(yRate(rate)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(yRate(rate)))\" stroke=\"#eee\"/>\n"
        }
        let ratePath = points.map { "\(f(x($0.users))),\(f(yRate($0.usersPerSecond)))" }.joined(separator: " ")
        let rssPath = points.map { "\(f(x($0.users))),\(f(yRSS($0.rssMB)))" }.joined(separator: " ")
        svg += "<polyline points=\"\(ratePath)\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n"
        svg += "<polyline points=\"\(rssPath)\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"2\"/>\n"
        for point in points {
            svg += "<circle cx=\"\(f(x(point.users)))\" cy=\"\(f(yRate(point.usersPerSecond)))\" r=\"4\" fill=\"#1f77b4\"/>\n"
            svg += "<text x=\"\(f(x(point.users)))\" y=\"\(f(yRate(point.usersPerSecond) - 8))\" text-anchor=\"middle\" fill=\"#1f77b4\">\(grouped(Int(point.usersPerSecond)))/s</text>\n"
            svg += "<circle cx=\"\(f(x(point.users)))\" cy=\"\(f(yRSS(point.rssMB)))\" r=\"4\" fill=\"#ff7f0e\"/>\n"
            svg += "<text x=\"\(f(x(point.users)))\" y=\"\(f(yRSS(point.rssMB) + 18))\" text-anchor=\"middle\" fill=\"#ff7f0e\">\(Int(point.rssMB)) MB</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    private func niceCeiling(_ value: Double) -> Double {
        let power = pow(10, (log10(max(value, 1))).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value } ?? value
    }
}

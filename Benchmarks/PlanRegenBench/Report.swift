import Foundation

/// The benchmark's table: one row per measured run, with users/s, peak memory, the
/// ratio to the floor (two streams when the run used two connections, else one) and the
/// CPU time the hypervisor took away during the run (this machine is a shared VM).
struct Report {
    struct Row {
        var scenario: String
        var users: Int
        var config: String
        var seconds: Double
        var rssBytes: Int?
        var floor: Floor?
        var workers = 1
        var stolenCPUSeconds: Double?

        init(scenario: String, users: Int, config: String, seconds: Double, rssBytes: Int?, floor: Floor?) {
            self.scenario = scenario
            self.users = users
            self.config = config
            self.seconds = seconds
            self.rssBytes = rssBytes
            self.floor = floor
        }

        /// Processes started together: the wall time of the slowest, the largest peak RSS.
        init(scenario: String, users: Int, config: String, runs: [ChildRun], floor: Floor?, workers: Int) {
            self.init(scenario: scenario, users: users, config: config,
                      seconds: runs.map(\.wallSeconds).max() ?? 0, rssBytes: runs.compactMap(\.peakRSSBytes).max(),
                      floor: floor)
            self.workers = workers
            stolenCPUSeconds = runs.compactMap(\.stolenCPUSeconds).max()
        }

        var floorSeconds: Double? { floor.map { workers > 1 ? $0.seconds2Streams : $0.seconds1Stream } }
    }

    private(set) var rows: [Row] = []
    private(set) var notes: [String] = []

    mutating func add(_ row: Row) {
        rows.append(row)
        log("\(row.scenario) — \(row.config) — \(row.users) users — " + String(format: "%.2f s", row.seconds))
    }

    mutating func note(_ text: String) {
        notes.append(text)
        log(text)
    }

    var markdown: String {
        var lines = [
            "| scenario | users | run as | wall | users/s | peak RSS | floor (streams) | × floor | CPU stolen |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in rows {
            let floor = row.floorSeconds.map { String(format: "%.2f s (%d)", $0, row.workers > 1 ? 2 : 1) } ?? "—"
            let ratio = row.floorSeconds.map { String(format: "%.2f", row.seconds / $0) } ?? "—"
            let rss = row.rssBytes.map { String(format: "%.0f MB", Double($0) / 1_048_576) } ?? "—"
            let wall = row.seconds < 1 ? String(format: "%.0f ms", row.seconds * 1000) : String(format: "%.2f s", row.seconds)
            let rate = grouped(Int((Double(row.users) / row.seconds).rounded()))
            let stolen = row.stolenCPUSeconds.map { String(format: "%.1f s", $0) } ?? "—"
            lines.append("| \(row.scenario) | \(grouped(row.users)) | \(row.config) | \(wall) | \(rate) | \(rss) | \(floor) | \(ratio) | \(stolen) |")
        }
        return (lines + [""] + notes.map { "- \($0)" }).joined(separator: "\n") + "\n"
    }

    private func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}

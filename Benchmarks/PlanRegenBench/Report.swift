import Foundation

/// The benchmark's table: one row per measured scenario (the median of its runs), with
/// users/s, peak memory, the ratio to the fair floor, the database round trips the job
/// counted, and the CPU time the hypervisor took away during the runs (this machine is a
/// shared VM) or the delay proxy used.
struct Report {
    struct Row {
        var scenario: String
        var users: Int
        var config: String
        /// The median run's wall time, and the fastest and slowest when there were several.
        var seconds: Double
        var range: (Double, Double)?
        var rssBytes: Int?
        var floor: Floor?
        var stolenCPUSeconds: Double?
        /// The median run's round trips to the database, in all and per batch.
        var roundTrips: (run: Int, perBatch: Double)?
        /// CPU time of the delay proxy during the runs (it shares the cores with the job).
        var proxyCPUSeconds: Double?
        /// The median run's CPU time: the job's own, and the rest of the machine's (the
        /// database server's, nearly all) while it ran.
        var cpu: (job: Double, rest: Double)?

        /// A peer's run, timed in process.
        init(scenario: String, users: Int, config: String, seconds: Double) {
            self.scenario = scenario
            self.users = users
            self.config = config
            self.seconds = seconds
        }

        /// `runs` of one scenario: the median by wall time is reported.
        init(scenario: String, users: Int, config: String, runs: [ChildRun], floor: Floor?,
             proxyCPUSeconds: Double? = nil) {
            let sorted = runs.sorted { $0.wallSeconds < $1.wallSeconds }
            let median = sorted[sorted.count / 2]
            self.init(scenario: scenario, users: users, config: config, seconds: median.wallSeconds)
            if runs.count > 1 { range = (sorted.first!.wallSeconds, sorted.last!.wallSeconds) }
            rssBytes = median.peakRSSBytes
            self.floor = floor
            stolenCPUSeconds = median.stolenCPUSeconds
            roundTrips = median.roundTrips
            if let job = median.jobCPUSeconds, let machine = median.machineCPUSeconds { cpu = (job, machine - job) }
            self.proxyCPUSeconds = proxyCPUSeconds
        }

        var usersPerSecond: Double { Double(users) / seconds }
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
            "| scenario | users | run as | wall | users/s | peak RSS | CPU: job + rest | floor (streams; CPU) | × floor | round trips (per batch) | CPU stolen |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in rows {
            let floor = row.floor.map { floor in
                String(format: "%@ (%d", duration(floor.seconds), floor.streams)
                    + (floor.cpuSeconds.map { String(format: "; %.1f s", $0) } ?? "") + ")"
            } ?? "—"
            let cpu = row.cpu.map { String(format: "%.1f + %.1f s", $0.job, $0.rest) } ?? "—"
            let ratio = row.floor.map { String(format: "%.2f", row.seconds / $0.seconds) } ?? "—"
            let rss = row.rssBytes.map { String(format: "%.0f MB", Double($0) / 1_048_576) } ?? "—"
            var wall = duration(row.seconds)
            if let (low, high) = row.range { wall += " (\(duration(low))–\(duration(high)))" }
            let trips = row.roundTrips.map { "\(grouped($0.run)) (\(String(format: "%.1f", $0.perBatch)))" } ?? "—"
            var stolen = row.stolenCPUSeconds.map { String(format: "%.1f s", $0) } ?? "—"
            if let proxy = row.proxyCPUSeconds { stolen += String(format: "; proxy CPU %.1f s", proxy) }
            lines.append("| \(row.scenario) | \(grouped(row.users)) | \(row.config) | \(wall) | "
                         + "\(grouped(Int(row.usersPerSecond.rounded()))) | \(rss) | \(cpu) | \(floor) | \(ratio) | \(trips) | \(stolen) |")
        }
        return (lines + [""] + notes.map { "- \($0)" }).joined(separator: "\n") + "\n"
    }

    private func duration(_ seconds: Double) -> String {
        seconds < 1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }
}

/// `n` with thousands separators: 1,000,000.
func grouped(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(d)
    }
    return out
}

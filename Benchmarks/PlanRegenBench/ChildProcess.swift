import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One finished `plan-regen` process: what the benchmark reports about it.
struct ChildRun {
    var exitCode: Int32
    var wallSeconds: Double
    /// Peak resident set size of the process (nil without GNU time).
    var peakRSSBytes: Int?
    var stderr: String
    /// CPU time the hypervisor gave elsewhere while the run wanted it, over all cores
    /// (`steal` in /proc/stat); nil where unreadable. Wall times on a shared virtual
    /// machine move with it.
    var stolenCPUSeconds: Double?
    /// CPU time of the job process (user + system, from GNU time), and of the whole
    /// machine while it ran (/proc/stat): the rest is mostly the database server's.
    var jobCPUSeconds: Double?
    var machineCPUSeconds: Double?

    /// The database round trips the run counted, from its "run finished" log line
    /// (`round_trips=…`, `round_trips_per_batch=…`).
    var roundTrips: (run: Int, perBatch: Double)? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("run finished") }) else { return nil }
        func value(_ key: String) -> Substring? {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }?.dropFirst(key.count + 1)
        }
        guard let run = value("round_trips").flatMap({ Int($0) }),
              let perBatch = value("round_trips_per_batch").flatMap({ Double($0) }) else { return nil }
        return (run, perBatch)
    }
}

/// The machine's stolen CPU time so far (all cores), from /proc/stat.
func stolenCPUSeconds() -> Double? {
    cpuSeconds(fields: [8])
}

/// The CPU time the machine spent busy so far, all cores and processes (user, nice,
/// system, irq, softirq in /proc/stat; idle, iowait and steal are not busy).
func busyCPUSeconds() -> Double? {
    cpuSeconds(fields: [1, 2, 3, 6, 7])
}

/// The sum of the "cpu" line's `fields` (1: user … 8: steal), in seconds.
private func cpuSeconds(fields wanted: [Int]) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
          let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
    else { return nil }
    // cpu user nice system idle iowait irq softirq steal …
    let fields = line.split(separator: " ")
    guard let last = wanted.max(), fields.count > last else { return nil }
    let ticks = wanted.compactMap { Double(fields[$0]) }.reduce(0, +)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Starts `plan-regen` processes (the job is measured as ops run it: a fresh process,
/// startup included) and waits for them.
///
/// Peak memory comes from GNU time (`/usr/bin/time -f %M`), which starts the job itself:
/// Linux carries a process's peak RSS over into whatever it execs, so the rusage of a
/// child spawned straight from this (large) benchmark would report the benchmark's peak.
struct JobBinary {
    let path: String
    static let gnuTime = "/usr/bin/time"

    /// `plan-regen` beside this benchmark's executable (`swift build -c release` puts
    /// both in one folder).
    static func besideThisExecutable() throws -> JobBinary {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("plan-regen").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("no plan-regen beside \(me): run `swift build -c release` first")
        }
        return JobBinary(path: path)
    }

    /// Runs one process per argument list at once; stdout goes to /dev/null (the
    /// notification lines are not what is measured), stderr to a file read back.
    func run(_ argumentLists: [[String]]) throws -> [ChildRun] {
        let start = DispatchTime.now()
        let stolenBefore = stolenCPUSeconds()
        let busyBefore = busyCPUSeconds()
        var children: [(pid: pid_t, stderrPath: String)] = []
        for arguments in argumentLists {
            let stderrPath = NSTemporaryDirectory() + "plan-regen-bench-\(UUID().uuidString).log"
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let measured = FileManager.default.isExecutableFile(atPath: Self.gnuTime)
            let command = measured ? [Self.gnuTime, "-f", "%M %U %S", "-o", stderrPath + ".rss", path] + arguments
                                   : [path] + arguments
            let argv = command.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
            guard status == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(status)))") }
            children.append((pid, stderrPath))
        }
        var runs: [ChildRun] = []
        for child in children {
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0 {
                guard errno == EINTR else { throw BenchError("waitpid failed: \(String(cString: strerror(errno)))") }
            }
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            let stderr = (try? String(contentsOfFile: child.stderrPath, encoding: .utf8)) ?? ""
            // GNU time's last line: the job's peak RSS in KiB, user and system CPU seconds.
            let measures = (try? String(contentsOfFile: child.stderrPath + ".rss", encoding: .utf8))?
                .split(separator: "\n").last?.split(separator: " ") ?? []
            let rssKiB = measures.first.flatMap { Int($0) }
            let cpu = measures.count == 3 ? Double(measures[1]).flatMap { user in Double(measures[2]).map { user + $0 } } : nil
            try? FileManager.default.removeItem(atPath: child.stderrPath)
            try? FileManager.default.removeItem(atPath: child.stderrPath + ".rss")
            let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            runs.append(ChildRun(exitCode: exitCode, wallSeconds: wall,
                                 peakRSSBytes: rssKiB.map { $0 * 1024 }, stderr: stderr, jobCPUSeconds: cpu))
        }
        if let before = stolenBefore, let after = stolenCPUSeconds() {
            for index in runs.indices { runs[index].stolenCPUSeconds = after - before }
        }
        if let before = busyBefore, let after = busyCPUSeconds() {
            for index in runs.indices { runs[index].machineCPUSeconds = after - before }
        }
        for (index, run) in runs.enumerated() where run.exitCode != 0 {
            throw BenchError("plan-regen \(argumentLists[index].joined(separator: " ")) exited \(run.exitCode):\n\(run.stderr)")
        }
        return runs
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

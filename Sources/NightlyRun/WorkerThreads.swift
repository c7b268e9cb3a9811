import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How many batches a run processes at once when `--workers` is not given, and the
/// threads that process them.
public enum WorkerThreads {
    /// The default `--workers`: twice the CPU cores this process may use (`usableCores`:
    /// its affinity mask and its cgroup's CPU quota, so a container limited to 1.5 CPUs
    /// counts 2), at least 2 and at most 8.
    ///
    /// Why twice: a worker spends part of every batch waiting for the database (its COPY
    /// parsed, its commit) while the job and the server take turns on the batch; a second
    /// worker per core keeps the cores busy through those waits, and through a remote
    /// database's network latency (docs/performance.md). Why at most 8: each worker holds a
    /// database connection (docs/operations.md, "PgBouncer and pool sizing"), and past the
    /// database host's cores more workers only queue there.
    public static var defaultCount: Int {
        min(8, max(2, 2 * usableCores()))
    }

    /// The cores this process may run on: the online CPUs, lowered by its affinity mask
    /// (`taskset`, a container's cpuset, Kubernetes' static CPU manager) and by a cgroup v2
    /// CPU quota (`cpu.max`, e.g. "150000 100000" → 2) when there are such limits.
    ///
    /// The mask is read from `/proc/self/status`: Foundation's `activeProcessorCount`
    /// counts the online CPUs on Linux whatever the mask (a process pinned to one of two
    /// cores got 4 workers), and glibc's `sched_getaffinity` is not visible to Swift.
    static func usableCores() -> Int {
        var cores = ProcessInfo.processInfo.activeProcessorCount
        if let allowed = affinityCPUCount() { cores = min(cores, allowed) }
        if let quota = cgroupCPUQuota() { cores = min(cores, quota) }
        return max(1, cores)
    }

    /// How many CPUs this process's affinity mask allows; nil when it cannot be read.
    static func affinityCPUCount() -> Int? {
        allowedCPUList(ofProcess: "self").flatMap(cpuCount(fromList:))
    }

    /// The CPUs process `pid` ("self": this one) may run on, as the kernel lists them in
    /// `/proc/<pid>/status` ("0-1", "0,2-5"); nil when it cannot be read.
    public static func allowedCPUList(ofProcess pid: String) -> String? {
        let prefix = "Cpus_allowed_list:"
        return (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map { $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
    }

    /// The CPUs of a kernel CPU list ("0-3,8,10-11" → 7); nil when it is not one.
    static func cpuCount(fromList text: String) -> Int? {
        var count = 0
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
                .map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                count += high - low + 1
            default:
                return nil
            }
        }
        return count > 0 ? count : nil
    }

    /// The CPU limit of this process's cgroup v2, rounded up; nil without one.
    static func cgroupCPUQuota() -> Int? {
        (try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8)).flatMap(cpuQuota(fromCPUMax:))
    }

    /// The CPUs a cgroup v2 `cpu.max` ("LIMIT PERIOD", or "max PERIOD") allows, rounded up.
    static func cpuQuota(fromCPUMax text: String) -> Int? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let limit = Double(fields[0]), let period = Double(fields[1]), period > 0 else {
            return nil  // "max 100000": no limit
        }
        return Int((limit / period).rounded(.up))
    }

    /// Runs `body(0)`, …, `body(count - 1)` on `count` threads of their own and returns
    /// when all have ended. Explicit threads, not `DispatchQueue.concurrentPerform`, which
    /// caps concurrency at the core count: a worker mostly waits on its database
    /// connection, so more workers than cores pays when the database is remote.
    public static func run(count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            let thread = Thread {
                body(index)
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        finished.wait()
    }
}

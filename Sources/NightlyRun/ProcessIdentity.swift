#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a run is: the machine and process that hold its claims (`plan_runs.host`, `.pid`,
/// `.process_key`), so that another run can tell the holder of a claim has died instead of
/// waiting for the claim to expire.
///
/// The key is `boot id / pid namespace / pid / start time`. Another run can judge it only
/// when it shares the boot and the pid namespace (the same machine, or the same
/// container): then the holder is gone when no process with that pid and start time
/// exists. On any other machine or container it cannot tell, and the claim's expiry
/// (`--claim-ttl`) is what frees the partitions. A wrong "gone" could only make a live run
/// lose its claim, which its next fenced transaction notices (exit 1); never a duplicate.
public struct ProcessIdentity: Sendable, Equatable {
    public var host: String
    public var pid: Int
    /// Nil where /proc is not available (then other runs wait for the claim to expire).
    public var key: String?

    public static let current = ProcessIdentity(
        host: hostName(), pid: Int(getpid()), key: processKey(pid: Int(getpid())))

    /// True when the process `key` names ran in this boot and pid namespace and is gone;
    /// false when it still runs or cannot be judged from here.
    public static func isGone(key: String) -> Bool {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let pid = Int(parts[2]),
              let here = current.key?.split(separator: "/", omittingEmptySubsequences: false),
              here.count == 4, parts[0] == here[0], parts[1] == here[1] else { return false }
        return processKey(pid: pid) != key
    }

    /// `boot id/pid namespace/pid/start time`, or nil when /proc cannot say.
    static func processKey(pid: Int) -> String? {
        guard let boot = readText("/proc/sys/kernel/random/boot_id"),
              let namespace = linkTarget("/proc/self/ns/pid"),
              let start = startTime(pid: pid) else { return nil }
        return "\(boot)/\(namespace)/\(pid)/\(start)"
    }

    /// Field 22 of /proc/PID/stat (clock ticks after boot): tells a reused pid apart.
    private static func startTime(pid: Int) -> String? {
        guard let stat = readText("/proc/\(pid)/stat"), let end = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init)
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

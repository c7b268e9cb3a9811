import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The programs the real-component infrastructure runs (`pgbouncer`, `pg_basebackup`,
/// `pg_ctl`, `psql`), spawned the way `ThrowawayCluster.script` spawns pg-cluster.sh:
/// `posix_spawn` through a `bash` that closes every descriptor above stderr before it
/// `exec`s the program (a server that lives on must not hold a pipe that a Foundation
/// `Process` here or in a concurrent test waits on), output to files, never to pipes.
enum Subprocess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `argv` to its end, killing it after `limitSeconds`; returns its exit status
    /// (128 + the signal when a signal ended it) and output.
    static func run(_ argv: [String], limitSeconds: Double = 120) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdoutPath = directory.appendingPathComponent("stdout").path
        let stderrPath = directory.appendingPathComponent("stderr").path
        let pid = try spawn(argv, stdout: stdoutPath, stderr: stderrPath)
        let deadline = Date().addingTimeInterval(limitSeconds)
        var status: Int32 = 0
        while true {
            if let exited = reap(pid) {
                status = exited
                break
            }
            if Date() >= deadline {
                kill(pid, SIGKILL)
                _ = waitBlocking(pid)
                throw SubprocessError.timedOut(argv, limitSeconds)
            }
            usleep(2000)
        }
        return Result(
            status: status,
            stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }

    /// Runs `argv` and returns its stdout; throws with its stderr when it fails.
    @discardableResult
    static func check(_ argv: [String], limitSeconds: Double = 120) throws -> String {
        let result = try run(argv, limitSeconds: limitSeconds)
        guard result.status == 0 else {
            throw SubprocessError.failed(argv, result.status, result.stderr + result.stdout)
        }
        return result.stdout
    }

    /// Starts `argv` as a child of this process and returns its pid: stdin from the
    /// descriptor `stdin` (or /dev/null), stdout and stderr appended to the given files.
    /// The caller reaps it (`reap`, `waitBlocking`).
    static func spawn(_ argv: [String], stdin: Int32? = nil, stdout: String, stderr: String) throws -> pid_t {
        let closeAndRun = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#
            + #"exec "$0" "$@""#
        let arguments = ["/bin/bash", "-c", closeAndRun] + argv
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        // Signals as a fresh process has them: a thread of the test runner may block some
        // (a pooler spawned with SIGTERM blocked would not stop), and ignored ones stay
        // ignored across exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw SubprocessError.spawnFailed(argv, spawned) }
        return pid
    }

    /// A pipe whose two ends are closed on exec (`pipe2` with O_CLOEXEC is not exposed to
    /// Swift here): no child but the one a descriptor is handed to explicitly inherits it.
    static func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SubprocessError.spawnFailed(["pipe"], errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// The exit status of the child `pid` if it has ended (and reaps it), else nil.
    static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
        guard result == pid else { return result < 0 ? -1 : nil }
        return exitStatus(status)
    }

    /// Waits for the child `pid` to end and returns its exit status.
    static func waitBlocking(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        return result == pid ? exitStatus(status) : -1
    }

    /// Sends `signal` to the child `pid`, waits up to `limitSeconds` for it to end, then
    /// SIGKILLs it; it is reaped either way.
    static func stop(_ pid: pid_t, signal: Int32 = SIGTERM, limitSeconds: Double = 10) {
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(limitSeconds)
        while reap(pid) == nil {
            if Date() >= deadline {
                kill(pid, SIGKILL)
                _ = waitBlocking(pid)
                return
            }
            usleep(1000)
        }
    }

    /// `argv` run as the `postgres` user when this process is root (PostgreSQL and
    /// pgbouncer refuse root), unchanged otherwise. `setpriv` execs the program itself, so
    /// the pid `spawn` returns is the program's; its environment is reset to postgres's own
    /// (no PG* settings of the caller, HOME=/var/lib/postgresql).
    static func asServerOwner(_ argv: [String]) -> [String] {
        guard geteuid() == 0 else { return argv }
        if let setpriv = executable("setpriv") {
            return [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups", "--reset-env", "--"] + argv
        }
        return ["runuser", "-u", "postgres", "--"] + argv
    }

    /// Makes `path` belong to the postgres user when this process is root.
    static func giveToServerOwner(_ path: String) throws {
        guard geteuid() == 0 else { return }
        guard let owner = getpwnam("postgres") else { throw SubprocessError.noPostgresUser }
        guard chown(path, owner.pointee.pw_uid, owner.pointee.pw_gid) == 0 else {
            throw SubprocessError.chownFailed(path, errno)
        }
    }

    /// The full path of `name` on PATH or in the sbin directories (pgbouncer is in
    /// /usr/sbin, which a non-root PATH may leave out); nil when it is not installed.
    static func executable(_ name: String, alsoIn extraDirectories: [String] = ["/usr/sbin", "/usr/local/sbin", "/sbin"]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The PostgreSQL server programs' directory (pg_ctl, pg_basebackup, psql, …), found
    /// the way deploy/pg-cluster.sh finds it: `pg_config --bindir`, else the newest
    /// /usr/lib/postgresql/*/bin.
    static let postgresBinDirectory: String? = {
        let hasServer = { (directory: String) in
            FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
                && FileManager.default.isExecutableFile(atPath: directory + "/initdb")
        }
        if let pgConfig = executable("pg_config"),
           let output = try? run([pgConfig, "--bindir"], limitSeconds: 30), output.status == 0 {
            let directory = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if hasServer(directory) { return directory }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            .map { "/usr/lib/postgresql/\($0)/bin" }
            .first(where: hasServer)
    }()

    static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// Runs a command when this test process ends without having cancelled it — killed,
/// crashed, or exited with the object still alive — so a pooler or a server a test started
/// does not outlive it. A child `sh` blocks reading a pipe whose only write end this object
/// holds (closed on exec, so no other child inherits it); the kernel closes that end when
/// the process ends, and at end of file the shell runs the command. `cancel()` (and
/// `deinit`) ends the watchdog without running it.
final class ExitWatchdog {
    private var pid: pid_t
    private var writeEnd: Int32

    init(_ command: [String]) throws {
        let ends = try Subprocess.closeOnExecPipe()
        defer { close(ends.read) }
        do {
            pid = try Subprocess.spawn(
                ["/bin/sh", "-c", #"read -r _; exec "$@""#, "exit-watchdog"] + command,
                stdin: ends.read, stdout: "/dev/null", stderr: "/dev/null")
        } catch {
            close(ends.write)
            throw error
        }
        writeEnd = ends.write
    }

    deinit { cancel() }

    /// Ends the watchdog without running its command (SIGKILL before the pipe closes).
    func cancel() {
        guard pid != 0 else { return }
        Subprocess.stop(pid, signal: SIGKILL)
        close(writeEnd)
        pid = 0
    }
}

enum SubprocessError: Error, CustomStringConvertible {
    case spawnFailed([String], Int32)
    case failed([String], Int32, String)
    case timedOut([String], Double)
    case noPostgresUser
    case chownFailed(String, Int32)

    var description: String {
        switch self {
        case .spawnFailed(let argv, let error):
            "could not start \(argv.joined(separator: " ")): \(String(cString: strerror(error)))"
        case .failed(let argv, let status, let output):
            "\(argv.joined(separator: " ")) exited with status \(status): \(output.suffix(2000))"
        case .timedOut(let argv, let seconds):
            "\(argv.joined(separator: " ")) did not finish within \(seconds) s (killed)"
        case .noPostgresUser:
            "no `postgres` user: install the postgresql package (deploy/install-deps.sh)"
        case .chownFailed(let path, let error):
            "could not give \(path) to the postgres user: \(String(cString: strerror(error)))"
        }
    }
}

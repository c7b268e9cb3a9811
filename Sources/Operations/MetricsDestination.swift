import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LineOutput
import NightlyRun

/// `--metrics-file PATH`: the last report in Prometheus text format, for the
/// node_exporter textfile collector (point its `--collector.textfile.directory` at the
/// folder and name the file `*.prom`).
///
/// Written atomically (a temporary file in the same folder, then `rename`) so the
/// collector never reads half a file, after every run — failed ones too. One file per
/// process: give each `--shard`, and `deliver`, its own path.
public struct MetricsFile: MetricsDestination {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Read from the file as the last report left it (none yet: nothing to carry over).
    public func previousRuns() -> PreviousRuns {
        PreviousRuns(metricsText: FileManager.default.contents(atPath: path)
            .map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// Writes a temporary file beside it, then renames it over the file.
    public func replace(with text: String) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // A dot name without .prom: the collector ignores it while it is being written.
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MetricsFileError(path: path, step: "create \(temporary)", errno: errno) }
        if let code = LineWriter.writeAll(Array(text.utf8), to: fd) {
            close(fd)
            unlink(temporary)
            throw MetricsFileError(path: path, step: "write \(temporary)", errno: code)
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw MetricsFileError(path: path, step: "flush \(temporary)", errno: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw MetricsFileError(path: path, step: "rename \(temporary) to it", errno: code)
        }
    }
}

/// Why the metrics file could not be written.
public struct MetricsFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var step: String
    public var reason: String

    init(path: String, step: String, errno code: Int32) {
        self.path = path
        self.step = step
        self.reason = String(cString: strerror(code))
    }

    public var description: String {
        "cannot write metrics file \(path) (\(step)): \(reason); check that its folder exists and is writable"
    }
}

/// `--metrics-push URL`: the metrics a metrics file would hold, pushed to a Prometheus
/// Pushgateway (Kubernetes has no textfile collector in a pod).
///
/// Each push replaces the whole group `job="plan-regen", instance=…` (HTTP PUT to
/// `URL/metrics/job/plan-regen/instance/<instance>`), so no family of an older push
/// lingers. The gateway keeps a group's last push forever: a shard that stopped running
/// leaves its last values behind, but its `plan_regen_last_success_timestamp_seconds`
/// (and the gateway's own `push_time_seconds`) stop moving, so "no success for 45 minutes"
/// fires for it instead of it looking fresh. A retired group is deleted with
/// `curl -X DELETE URL/metrics/job/plan-regen/instance/<instance>`.
///
/// A failed run must keep the last success, and the failure counter counts across runs:
/// with no file to carry them, both are read back from the gateway's group before the push.
public struct MetricsPush: MetricsDestination {
    /// The `job` label of every group.
    public static let job = "plan-regen"

    /// The gateway's base URL, e.g. `http://pushgateway:9091`.
    public let gateway: URL
    /// The `instance` label (`MetricsPush.instanceName`, or `isValidInstance`).
    public var instance: String
    /// How long each HTTP request may take.
    public var timeoutSeconds: Double = 10

    /// nil unless `gateway` is an http(s) URL with a host and no query, and `instance` a
    /// valid instance name (`isValidInstance`).
    public init?(gateway text: String, instance: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil, url.query == nil, url.fragment == nil, Self.isValidInstance(instance) else { return nil }
        gateway = url
        self.instance = instance
    }

    /// The instance label when `--metrics-instance` is not given: `shard-<i>-of-<n>` for a
    /// `--shard` run, else `all`. Not the host name: a Kubernetes pod has a new one on
    /// every run, and each would leave a group behind.
    public static func instanceName(shard: Shard?) -> String {
        shard.map { "shard-\($0.index)-of-\($0.count)" } ?? "all"
    }

    /// Letters, digits, `.`, `_`, `-`: safe as a URL path segment as it is.
    public static func isValidInstance(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count)
            && name.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                || $0 == UInt8(ascii: "-") }
    }

    /// The gateway as logs may show it: scheme, host and port, never credentials.
    public var redactedGateway: String {
        "\(gateway.scheme ?? "http")://\(gateway.host ?? "?")\(gateway.port.map { ":\($0)" } ?? "")"
    }

    /// Read back from the group's last push, in the gateway's exposition of every group.
    public func previousRuns() throws -> PreviousRuns {
        let exposition = try request("GET", gateway.appendingPathComponent("metrics"), body: nil,
                                     what: "read the group's last push")
        return PreviousRuns(metricsText: String(decoding: exposition, as: UTF8.self),
                            labels: ["job": Self.job, "instance": instance])
    }

    /// PUT: the group is replaced whole.
    public func replace(with text: String) throws {
        _ = try request("PUT", groupURL, body: Data(text.utf8), what: "push")
    }

    /// `URL/metrics/job/plan-regen/instance/<instance>`.
    public var groupURL: URL {
        gateway.appendingPathComponent("metrics").appendingPathComponent("job").appendingPathComponent(Self.job)
            .appendingPathComponent("instance").appendingPathComponent(instance)
    }

    /// One request, waited for; any answer but 2xx is an error naming the gateway's reply.
    private func request(_ method: String, _ url: URL, body: Data?, what: String) throws -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("text/plain; version=0.0.4", forHTTPHeaderField: "Content-Type")
        }
        if let user = gateway.user {
            let credentials = Data("\(user):\(gateway.password ?? "")".utf8).base64EncodedString()
            request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let reply = Reply()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            reply.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }.resume()
        done.wait()
        let (data, status, error) = reply.get()
        if let error {
            throw MetricsPushError(gateway: redactedGateway, what: what, reason: error.localizedDescription)
        }
        guard let status, (200..<300).contains(status) else {
            let answer = String(decoding: (data ?? Data()).prefix(300), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw MetricsPushError(gateway: redactedGateway, what: what,
                                   reason: "HTTP \(status.map(String.init) ?? "?")\(answer.isEmpty ? "" : ": \(answer)")")
        }
        return data ?? Data()
    }

    /// What the completion handler saw; the semaphore orders its one write before the read.
    private final class Reply: @unchecked Sendable {
        private var data: Data?
        private var status: Int?
        private var error: (any Error)?

        func set(data: Data?, status: Int?, error: (any Error)?) {
            (self.data, self.status, self.error) = (data, status, error)
        }

        func get() -> (Data?, Int?, (any Error)?) { (data, status, error) }
    }
}

/// Why the push failed: which gateway, what was being done, and the reason.
public struct MetricsPushError: Error, CustomStringConvertible, Sendable {
    public var gateway: String
    public var what: String
    public var reason: String
    public var hint = "check that the Pushgateway runs and that --metrics-push names it (e.g. http://pushgateway:9091)"

    public var description: String {
        "cannot push metrics to the Pushgateway at \(gateway) (\(what)): \(reason); \(hint)"
    }
}

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// What earlier runs left for the next one to carry over: the end of the last completed
/// run and the failure count, read from the metrics text they wrote (the file, or the
/// Pushgateway's exposition of the group).
public struct PreviousRuns: Equatable, Sendable {
    /// `plan_regen_last_success_timestamp_seconds`, as written.
    var lastSuccess: String?
    var failures = 0

    /// Reads the samples whose labels include `labels` (the Pushgateway's `job` and
    /// `instance`; none in a metrics file). Text that is no metrics gives nothing.
    init(metricsText: String, labels: [String: String] = [:]) {
        for line in metricsText.split(separator: "\n") where !line.hasPrefix("#") {
            guard let sample = Sample(line), labels.allSatisfy({ sample.labels[$0.key] == $0.value }) else { continue }
            if sample.name == "plan_regen_last_success_timestamp_seconds", Double(sample.value) != nil {
                lastSuccess = sample.value
            } else if sample.name == "plan_regen_run_failures_total", let value = Double(sample.value) {
                failures = Int(value)
            }
        }
    }

    /// One line of Prometheus text: `name{label="value",…} value`.
    struct Sample {
        var name: Substring
        var labels: [String: String] = [:]
        var value: String

        init?(_ line: Substring) {
            guard let space = line.lastIndex(of: " ") else { return nil }
            value = String(line[line.index(after: space)...])
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                name = series
                return
            }
            name = series[..<brace]
            var rest = series[series.index(after: brace)...]
            while let equals = rest.firstIndex(of: "=") {
                let key = rest[..<equals].drop { $0 == "," || $0 == " " }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var labelValue = ""
                var escaping = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaping {
                        labelValue.append(character == "n" ? "\n" : character)
                        escaping = false
                    } else if character == "\\" {
                        escaping = true
                    } else if character == "\"" {
                        break
                    } else {
                        labelValue.append(character)
                    }
                }
                labels[String(key)] = labelValue
            }
        }
    }
}

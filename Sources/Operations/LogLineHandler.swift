import Logging
import PlanJSON
import PlanRules

/// A swift-log handler writing one line per event to stderr, as `LogFormat` describes.
///
/// Lines about one user carry `user_id`, lines of a run `run_id`: the run sets them as
/// metadata on the loggers it hands down. Health data (weights, heights, dates of birth)
/// is never logged: callers log ids, counts, field names and reasons only.
public struct LogLineHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let format: LogFormat
    private let output: ConsoleOutput
    private let clock: @Sendable () -> Instant

    public init(level: Logger.Level, format: LogFormat, output: ConsoleOutput,
                clock: @escaping @Sendable () -> Instant = wallClockNow) {
        self.logLevel = level
        self.format = format
        self.output = output
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        let timestamp = Self.millisecondTimestamp(clock())
        let line: String
        switch format {
        case .text: line = Self.textLine(timestamp, event.level, "\(event.message)", merged)
        case .json: line = Self.jsonLine(timestamp, event.level, "\(event.message)", merged)
        }
        output.writeLine(line)
    }

    /// `2026-11-22T07:00:00.125Z`: UTC to the millisecond.
    static func millisecondTimestamp(_ instant: Instant) -> String {
        let full = instant.rfc3339  // six fractional digits
        return String(full.dropLast(4)) + "Z"
    }

    static func textLine(_ timestamp: String, _ level: Logger.Level, _ message: String,
                         _ metadata: Logger.Metadata) -> String {
        var line = "\(timestamp) \(level.rawValue) \(oneLine(message))"
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quotedIfNeeded(flatText(metadata[key]!)))"
        }
        return line
    }

    static func jsonLine(_ timestamp: String, _ level: Logger.Level, _ message: String,
                         _ metadata: Logger.Metadata) -> String {
        var members = [
            JSONMember(key: "ts", value: .string(timestamp)),
            JSONMember(key: "level", value: .string(level.rawValue)),
            JSONMember(key: "msg", value: .string(message)),
        ]
        for key in metadata.keys.sorted() where !["ts", "level", "msg"].contains(key) {
            members.append(JSONMember(key: key, value: jsonValue(metadata[key]!)))
        }
        return JSONValue.object(members).jsonString
    }

    private static func jsonValue(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(jsonValue))
        case .dictionary(let dictionary):
            .object(dictionary.keys.sorted().map { JSONMember(key: $0, value: jsonValue(dictionary[$0]!)) })
        }
    }

    private static func flatText(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(flatText).joined(separator: ",")
        case .dictionary(let dictionary):
            dictionary.keys.sorted().map { "\($0):\(flatText(dictionary[$0]!))" }.joined(separator: ",")
        }
    }

    /// A value as `key=value`, or `key="value"` when it is empty or holds a space, a quote,
    /// an `=` or a line break, so each line still splits into fields.
    private static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
        return "\"" + oneLine(escaped) + "\""
    }

    /// A line break inside a message would start a new log line: write it as `\n`.
    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\\n")
    }
}

extension String {
    /// `self` with every `target` replaced (no Foundation needed).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

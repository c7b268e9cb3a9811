import ArgumentParser
import Logging
import NightlyRun
import Operations
import PlanRules
import PlanStore

// The types options are parsed into, once, by ArgumentParser before `validate()` and
// `run()`: no command parses an option's text again.

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `--locale de-DE`: numbers and dates of `history` and `explain` text in that locale.
extension ReadableFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(identifier: argument) }
    public var defaultValueDescription: String { "en-US" }
}
extension LogFormat: ExpressibleByArgument {}

/// A value of the command line (`--as-of`, `--shard`, `--from`, `--older-than`, …) whose
/// refusal says what was expected: a usage error (exit 64) such as `The value 'yesterday'
/// is invalid for '--as-of <instant>': must be an RFC 3339 instant such as 2026-03-16T00:15:00Z`.
protocol CommandLineValue: ExpressibleByArgument {
    /// What a valid word looks like, said after one that is not.
    static var expected: String { get }
}

extension CommandLineValue {
    /// For `@Option(transform:)`, so that the message says `expected` (through
    /// `init(argument:)` alone, ArgumentParser cannot say why a word was refused).
    @Sendable static func parse(_ word: String) throws -> Self {
        guard let value = Self(argument: word) else { throw ValidationError(expected) }
        return value
    }
}

extension Instant: CommandLineValue {
    public init?(argument: String) { self.init(rfc3339: argument) }
    static let expected = "must be an RFC 3339 instant such as 2026-03-16T00:15:00Z"
}

extension LocalDate: CommandLineValue {
    public init?(argument: String) { self.init(iso8601: argument) }
    static let expected = "must be a date such as 2026-03-16"
}

extension Shard: CommandLineValue {
    public init?(argument: String) { self.init(argument) }
    static let expected = "must be i/n with 0 <= i < n <= \(UserPartitions.count), e.g. 0/2"
}

/// `--older-than 30d` or `12h`: whole days or hours.
extension Duration: @retroactive ExpressibleByArgument, CommandLineValue {
    public init?(argument: String) {
        guard let unit = argument.last, let number = Int64(argument.dropLast()), number >= 0,
              let size: Int64 = ["d": 86_400, "h": 3600][unit] else { return nil }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: size)
        if overflow { return nil }
        self = .seconds(seconds)
    }
    static let expected = "must be a number followed by d or h, e.g. 30d"
}

/// `--metrics-push URL`: labelled `all` until the run names its instance.
extension MetricsPush: CommandLineValue {
    public init?(argument: String) { self.init(gateway: argument, instance: "all") }
    static let expected = "must be an http(s) URL with a host and no query: the Pushgateway's base URL, "
        + "e.g. http://pushgateway:9091"
}

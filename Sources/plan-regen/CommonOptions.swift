import ArgumentParser
import Foundation
import Logging
import Operations
import PlanRules
import PlanStore
import Postgres

/// Options every command that talks to the database shares.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "PostgreSQL URL or conninfo. Default: DATABASE_URL, else the PG* environment.",
        valueName: "url"))
    var databaseURL: String?

    @Option(help: "Abort any statement running longer than this many seconds.")
    var statementTimeout: Int = 300

    @Option(help: "Give up waiting for a lock after this many seconds.")
    var lockTimeout: Int = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("Log lines on stderr: text (people, journald) or json (one object per line).",
                               valueName: "text|json"))
    var logFormat: LogFormat = .text

    func connect() throws -> PostgresConnection {
        if let databaseURL { return try PostgresConnection(conninfo: databaseURL) }
        return try PostgresConnection.connectFromEnvironment()
    }

    var timeouts: PlanStore.Timeouts {
        PlanStore.Timeouts(statementTimeoutMs: statementTimeout * 1000, lockTimeoutMs: lockTimeout * 1000)
    }

    /// The one way a command opens the database (`PlanStore.open`): checks the server and
    /// the schema first, and sets the timeouts in every transaction.
    func openStore(for access: PlanStore.Access) throws -> PlanStore {
        try PlanStore.open(connect(), for: access, timeouts: timeouts)
    }

    func makeLogger(label: String) -> Logger {
        let level = logLevel
        let format = logFormat
        return Logger(label: label) { _ in LogLineHandler(level: level, format: format, output: standardError) }
    }
}

/// Standard error, shared by every log line and the progress line of a run.
let standardError = ConsoleOutput()

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `--locale de-DE`: numbers and dates of `history` and `explain` text in that locale.
extension ReadableFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(identifier: argument) }
    public var defaultValueDescription: String { "en-US" }
}
extension LogFormat: ExpressibleByArgument {}

/// Prints `error` as one line on stderr and returns the exit code for it: every
/// failure a command expects ends here, never in a crash or a stack trace.
func fail(_ error: Error, logger: Logger) -> ExitCode {
    logger.critical("\(error)")
    return ExitCodes.fatal
}

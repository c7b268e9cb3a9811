import ArgumentParser
import Foundation
import Logging
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

    func connect() throws -> PostgresConnection {
        if let databaseURL { return try PostgresConnection(conninfo: databaseURL) }
        return try PostgresConnection.connectFromEnvironment()
    }

    var timeouts: PlanStore.Timeouts {
        PlanStore.Timeouts(statementTimeoutMs: statementTimeout * 1000, lockTimeoutMs: lockTimeout * 1000)
    }

    func openStore() throws -> PlanStore {
        try PlanStore(connection: connect(), timeouts: timeouts)
    }

    func makeLogger(label: String) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Prints `error` as one line on stderr and returns the exit code for it: every
/// failure a command expects ends here, never in a crash or a stack trace.
func fail(_ error: Error, logger: Logger) -> ExitCode {
    logger.critical("\(error)")
    return ExitCodes.fatal
}

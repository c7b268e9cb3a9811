import ArgumentParser
import Foundation
import Logging
import NightlyRun
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
    var statementTimeout = Int(PlanStore.Timeouts().statement.components.seconds)

    @Option(help: "Give up waiting for a lock after this many seconds.")
    var lockTimeout = Int(PlanStore.Timeouts().lock.components.seconds)

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
        PlanStore.Timeouts(statement: .seconds(statementTimeout), lock: .seconds(lockTimeout))
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

    /// Runs the work of `command` with its logger: any failure ends in `fail` (one line on
    /// stderr, exit 1 or 64); an `ExitCode` it throws passes as it is.
    func run(_ command: String, _ body: (Logger) throws -> Void) throws {
        let logger = makeLogger(label: "plan-regen.\(command)")
        do {
            try body(logger)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, logger: logger)
        }
    }
}

/// Standard error, shared by every log line and the progress line of a run.
let standardError = ConsoleOutput()

/// Prints `error` as one line on stderr and returns the exit code for it: every
/// failure a command expects ends here, never in a crash or a stack trace. A command
/// refused because of how it was asked for exits 64 (fix the command line), any other
/// failure 1.
func fail(_ error: Error, logger: Logger) -> ExitCode {
    logger.critical("\(error)")
    if error is Refusal || (error as? RunError)?.isUsageError == true { return .validationFailure }
    return ExitCodes.fatal.exitCode
}

/// A command that will not do what it was asked, after looking at the database (a
/// `seed-demo` into a table that already has users): says what is wrong and what to do.
struct Refusal: Error, CustomStringConvertible {
    var description: String
}

/// `--user` ids are positive: `--user -5` reaches here as a value (the options parse the
/// word after `--user` whatever it looks like), not as an unknown flag.
func validateUserIDs(_ userIDs: [Int64]) throws {
    if let bad = userIDs.first(where: { $0 <= 0 }) {
        throw ValidationError("--user \(bad): user ids are positive integers, e.g. --user 42")
    }
}

/// Writes a page or file a command was asked for (`--out`), whole or not at all.
func writeOutputFile(_ text: String, to path: String, what: String) throws {
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw ValidationError("cannot write the \(what) to \(path): \(error.localizedDescription); "
                              + "check that its folder exists and is writable")
    }
}

import ArgumentParser
import NightlyRun
import Operations
import PlanRules
import PlanStore
import ZoneFiles

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Shows how a user's current plan was derived and what will change next.",
        discussion: """
            For support tickets: prints the current plan's numbers formula by formula (BMR, \
            TDEE, calories, macros, water, MATADOR phase, projection) with the exact values, \
            then what happens next — a pending settings change, the next phase switch or \
            birthday — worked out with the same rules the run uses. Reads only; writes nothing.

            Examples:
              plan-regen explain --user 42
              plan-regen explain --user 42 --as-of 2026-03-30T00:15:00Z

            """ + ExitCodes.help([ExitCodes.done, ExitCodes.fatal, ExitCodes.unknownUsers, ExitCodes.usage]))

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditional,
            help: ArgumentHelp("The user to explain.", valueName: "id"))
    var userID: Int64

    @Option(help: ArgumentHelp("Look ahead from this RFC 3339 instant instead of now.", valueName: "instant"),
            transform: Instant.parse)
    var asOf: Instant?

    @Option(help: ArgumentHelp("Numbers and dates in this locale (BCP 47, e.g. de-DE).", valueName: "locale"))
    var locale: ReadableFormat = .standard

    func validate() throws {
        try validateUserIDs([userID])
    }

    func run() throws {
        try connection.run("explain") { logger in
            let zones = try ZoneDatabase.loadSystem()
            guard let report = try ExplainReport.gather(
                from: connection.openStore(for: .readOnly), userID: userID, asOf: asOf ?? wallClockNow(), zones: zones,
                format: locale)
            else {
                logger.error("user has neither a user_settings row nor a plan", metadata: ["user_id": "\(userID)"])
                throw ExitCodes.unknownUsers.exitCode
            }
            print(Self.render(report), terminator: "")
        }
    }

    /// The user, the plan and how it was derived (or "No plan yet."), then what happens next.
    static func render(_ report: ExplainReport) -> String {
        var sections = ["User \(report.userID)"]
        if let explanation = report.explanation {
            if let writtenBy = report.writtenBy { sections.append(writtenBy) }
            sections += ["", explanation]
        } else {
            sections.append("No plan yet.\n")
        }
        sections.append(report.outlook.render())
        return sections.joined(separator: "\n")
    }
}

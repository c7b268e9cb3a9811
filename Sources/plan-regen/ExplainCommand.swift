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

            Exit codes: 0 done; 1 fatal error; 3 the user has neither settings nor a plan.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditional,
            help: ArgumentHelp("The user to explain.", valueName: "id"))
    var userID: Int64

    @Option(help: ArgumentHelp("Look ahead from this RFC 3339 instant instead of now.", valueName: "instant"))
    var asOf: String?

    @Option(help: ArgumentHelp("Numbers and dates in this locale (BCP 47, e.g. de-DE).", valueName: "locale"))
    var locale: ReadableFormat = .standard

    func validate() throws {
        try validateUserIDs([userID])
        if let asOf, Instant(rfc3339: asOf) == nil {
            throw ValidationError("--as-of: '\(asOf)' is not an RFC 3339 instant such as 2026-03-16T00:15:00Z")
        }
    }

    func run() throws {
        let logger = connection.makeLogger(label: "plan-regen.explain")
        let text: String
        do {
            let zones = try ZoneDatabase.loadSystem()
            let store = try connection.openStore(for: .readOnly)
            guard let user = try store.loadUsers([userID]).first, user.row != nil || user.state != nil else {
                logger.error("user has neither a user_settings row nor a plan", metadata: ["user_id": "\(userID)"])
                throw ExitCodes.unknownUsers
            }
            var latest: HistoryRecord?
            try store.forEachHistoryRecord(in: HistoryRange(userID: userID, limit: 1)) { latest = $0 }
            var sections = ["User \(userID)"]
            if let plan = user.state?.currentPlan {
                if let latest {
                    sections.append("Written by run \(latest.runID) at \(latest.generatedAt.rfc3339) "
                                    + "(\(latest.reasons.joined(separator: ", ")))")
                }
                sections.append("")
                sections.append(PlanExplanation(snapshot: plan, format: locale).render())
            } else {
                sections.append("No plan yet.\n")
            }
            let asOfInstant = asOf.flatMap { Instant(rfc3339: $0) } ?? wallClockNow()
            sections.append(PlanOutlook(row: user.row, state: user.state, asOf: asOfInstant, zones: zones,
                                        format: locale).render())
            text = sections.joined(separator: "\n")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw fail(error, logger: logger)
        }
        print(text, terminator: "")
    }
}

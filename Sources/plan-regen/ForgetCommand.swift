import ArgumentParser
import PlanStore

struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Erases everything the job holds about users (GDPR erasure).",
        discussion: """
            Deletes the users' plan_state, plan_history, notification_outbox and \
            plan_rejections rows in one transaction, after waiting (up to --lock-timeout) \
            for their partitions, so a run in progress cannot write a plan for them mid-way. \
            Prints, per user, whether the job held anything about them and the rows deleted \
            per table, then the totals. Erasing a user again (or one never planned) is not an \
            error: it says nothing was stored and exits 0.

            The user_settings row belongs to the app: delete it there first. While it \
            exists, a run creates a plan again as soon as the row changes (the command warns).

            Examples:
              plan-regen forget --user 42
              plan-regen forget --user 42 --user 43

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A user to erase. Repeatable.", valueName: "id"))
    var users: [Int64] = []

    func validate() throws {
        guard !users.isEmpty else { throw ValidationError("give at least one --user id to erase") }
        try validateUserIDs(users)
    }

    func run() throws {
        try connection.run("forget") { logger in
            let store = try connection.openStore(for: .readWrite)
            let userIDs = Array(Set(users)).sorted()
            let erasures = try store.forget(userIDs)
            let total = erasures.reduce(ErasureCounts()) { $0 + $1.erased }
            let erasedUsers = erasures.filter { !$0.erased.isEmpty }.count
            for erasure in erasures {
                print(erasure.erased.isEmpty
                      ? "user \(erasure.userID): nothing stored (never planned, or already erased)"
                      : "user \(erasure.userID): erased \(Self.describe(erasure.erased))")
            }
            print("erased \(erasedUsers) of \(userIDs.count) users"
                  + (total.isEmpty ? ": nothing was stored" : ": \(Self.describe(total))"))
            logger.notice("users erased", metadata: [
                "users": "\(userIDs.count)", "users_with_data": "\(erasedUsers)", "plan_state": "\(total.planState)",
                "plan_history": "\(total.planHistory)", "notification_outbox": "\(total.notificationOutbox)",
                "plan_rejections": "\(total.planRejections)",
            ])
            for userID in try store.usersWithSettings(userIDs) {
                logger.warning("""
                    the app still has a user_settings row for this user: a run creates a plan again as \
                    soon as the row changes (or on run --user); delete the app's row first, then run forget again
                    """,
                               metadata: ["user_id": "\(userID)"])
            }
        }
    }

    /// `1 plan_state, 4 plan_history, 2 notification_outbox, 0 plan_rejections rows`
    static func describe(_ counts: ErasureCounts) -> String {
        "\(counts.planState) plan_state, \(counts.planHistory) plan_history, "
            + "\(counts.notificationOutbox) notification_outbox, \(counts.planRejections) plan_rejections rows"
    }
}

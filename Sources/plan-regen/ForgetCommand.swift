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
            Prints the number of rows deleted per table.

            The user_settings row belongs to the app: delete it there first. While it \
            exists, a run creates a plan again as soon as the row changes (the command warns).

            Examples:
              plan-regen forget --user 42
              plan-regen forget --user 42 --user 43
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("user"), help: ArgumentHelp("A user to erase. Repeatable.", valueName: "id"))
    var users: [Int64] = []

    func validate() throws {
        guard !users.isEmpty else { throw ValidationError("give at least one --user id to erase") }
    }

    func run() throws {
        let logger = connection.makeLogger(label: "plan-regen.forget")
        do {
            let store = try connection.openStore(for: .readWrite)
            let userIDs = Array(Set(users)).sorted()
            let counts = try store.forget(userIDs)
            print("erased \(userIDs.count) users: \(counts.planState) plan_state, \(counts.planHistory) plan_history, "
                  + "\(counts.notificationOutbox) notification_outbox, \(counts.planRejections) plan_rejections rows")
            logger.notice("users erased", metadata: [
                "users": "\(userIDs.count)", "plan_state": "\(counts.planState)",
                "plan_history": "\(counts.planHistory)", "notification_outbox": "\(counts.notificationOutbox)",
                "plan_rejections": "\(counts.planRejections)",
            ])
            for userID in try store.usersWithSettings(userIDs) {
                logger.warning("""
                    the app still has a user_settings row for this user: a run creates a plan again as \
                    soon as the row changes (or on run --user); delete the app's row first, then run forget again
                    """,
                               metadata: ["user_id": "\(userID)"])
            }
        } catch {
            throw fail(error, logger: logger)
        }
    }
}

import ArgumentParser
import Operations
import PlanRules
import PlanStore

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Removes emitted notification lines, old rejections and old runs (history is kept).",
        discussion: """
            Deletes, in small batches (short transactions, safe while runs go on):
              - notification_outbox lines emitted before the cutoff (pending lines are kept),
                and dead letters set aside before it (deliver --set-aside);
              - plan_rejections rows recorded before the cutoff;
              - plan_runs rows started before the cutoff that no history, rejection or outbox
                row references. Runs that wrote history are kept with it.
            plan_history and plan_state are never pruned. Prints the counts on stdout.

            Examples:
              plan-regen prune --older-than 30d
              plan-regen prune --older-than 12h --batch-size 1000

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Age of what to remove: a number with d (days) or h (hours), e.g. 30d.",
                               valueName: "age"), transform: Duration.parse)
    var olderThan: Duration

    @Option(help: "Rows deleted per transaction.")
    var batchSize = 5000

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        try connection.run("prune") { _ in
            let store = try connection.openStore(for: .readWrite)
            let cutoff = wallClockNow().adding(seconds: -olderThan.components.seconds)
            let counts = try store.prune(before: cutoff, batchSize: batchSize)
            print("removed before \(cutoff.rfc3339): \(counts.emittedNotifications) emitted notifications, "
                  + "\(counts.deadLetters) dead letters, \(counts.rejections) rejections, \(counts.runs) runs")
        }
    }
}

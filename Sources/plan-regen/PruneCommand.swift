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
              - notification_outbox lines emitted before the cutoff (pending lines are kept);
              - plan_rejections rows recorded before the cutoff;
              - plan_runs rows started before the cutoff that no history, rejection or outbox
                row references. Runs that wrote history are kept with it.
            plan_history and plan_state are never pruned. Prints the counts on stdout.

            Examples:
              plan-regen prune --older-than 30d
              plan-regen prune --older-than 12h --batch-size 1000
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Age of what to remove: a number with d (days) or h (hours), e.g. 30d.",
                               valueName: "age"))
    var olderThan: String

    @Option(help: "Rows deleted per transaction.")
    var batchSize = 5000

    func validate() throws {
        guard Self.seconds(olderThan) != nil else {
            throw ValidationError("--older-than: '\(olderThan)' must be a number followed by d or h, e.g. 30d")
        }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let logger = connection.makeLogger(label: "plan-regen.prune")
        do {
            let store = try connection.openStore(for: .readWrite)
            let cutoff = wallClockNow().adding(seconds: -Self.seconds(olderThan)!)
            let counts = try store.prune(before: cutoff, batchSize: batchSize)
            print("removed before \(cutoff.rfc3339): \(counts.emittedNotifications) emitted notifications, "
                  + "\(counts.rejections) rejections, \(counts.runs) runs")
        } catch {
            throw fail(error, logger: logger)
        }
    }

    /// `30d` → 2,592,000; `12h` → 43,200; nil for anything else.
    static func seconds(_ age: String) -> Int64? {
        guard let unit = age.last, let number = Int64(age.dropLast()), number >= 0 else { return nil }
        switch unit {
        case "d": return number.multipliedReportingOverflow(by: 86_400).overflow ? nil : number * 86_400
        case "h": return number.multipliedReportingOverflow(by: 3600).overflow ? nil : number * 3600
        default: return nil
        }
    }
}

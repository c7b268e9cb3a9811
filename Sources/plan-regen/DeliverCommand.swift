import ArgumentParser
import Foundation
import Logging
import NightlyRun
import Operations
import PlanRules
import PlanStore
import Webhooks

struct DeliverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Delivers the notification lines left pending, without planning; lists and sets aside refused batches.",
        discussion: """
            Sends every pending batch, oldest first, to --notifications (after a receiver's \
            outage, or from a timer of its own), and marks each one emitted once the \
            destination acknowledged it. Delivery is claimed per batch: two deliver processes, \
            or a deliver and a run, never post the same batch at once, and a deliver never \
            makes a scheduled run skip planning. A user's lines never overtake that user's \
            earlier lines.

            A batch the receiver refuses (a 4xx other than 408 and 429) stays pending, and \
            its users' later lines wait behind it. --list-refused shows such batches with the \
            receiver's answer; --set-aside moves one out of the way as a dead letter (kept, \
            never delivered; view notification_dead_letters).

            Examples:
              plan-regen deliver --notifications https://push.example/plan-regen
              plan-regen deliver --list-refused
              plan-regen deliver --set-aside 812 --reason "bad line"

            """ + ExitCodes.help([ExitCodes.done, ExitCodes.fatal, ExitCodes.metricsNotReported,
                                  ExitCodes.deliveryPending, ExitCodes.usage]))

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var destination: NotificationOptions

    @ArgumentParser.Flag(help: "List the batches the receiver refused and those set aside; deliver nothing.")
    var listRefused = false

    @Option(name: .customLong("set-aside"), help: ArgumentHelp(
        "Set this pending batch aside as a dead letter (never delivered). Repeatable.", valueName: "batch"))
    var setAside: [Int64] = []

    @Option(help: ArgumentHelp("Why the batches are set aside. Default: the receiver's refusal.", valueName: "text"))
    var reason: String?

    @Option(help: ArgumentHelp("Seconds after its last renewal that a delivery claim lapses.", valueName: "seconds"))
    var claimTTL: Int = 120

    @Option(help: ArgumentHelp("Write Prometheus metrics of this delivery here, atomically (its own *.prom).",
                               valueName: "file"), transform: MetricsFile.init(path:))
    var metricsFile: MetricsFile?

    func validate() throws {
        guard claimTTL >= 1 else { throw ValidationError("--claim-ttl must be at least 1 second") }
        if listRefused, !setAside.isEmpty { throw ValidationError("--list-refused and --set-aside cannot be combined") }
        if reason != nil, setAside.isEmpty { throw ValidationError("--reason goes with --set-aside") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let stop = StopSignal()
        var pending = false
        try connection.run("deliver") { logger in
            let store = try connection.openStore(for: .readWrite)
            if listRefused {
                print(Self.table(try store.refusedBatches()), terminator: "")
                return
            }
            if !setAside.isEmpty {
                try setBatchesAside(store: store, logger: logger)
                return
            }
            let poster: any LinePoster
            if let webhook = try destination.webhook(userAgent: "plan-regen/\(binaryVersion)", claimTTL: .seconds(claimTTL)) {
                poster = try WebhookClient(endpoint: webhook.endpoint, signer: webhook.signer, userAgent: webhook.userAgent)
            } else {
                poster = try destination.sink()
            }
            let delivery = NotificationDelivery(
                poster: poster, store: PlanStore(connection: try connection.connect(), timeouts: connection.timeouts),
                claim: DeliveryClaim(claimant: NotificationDelivery.claimant, ttl: .seconds(claimTTL)),
                settings: destination.deliverySettings(claimTTL: .seconds(claimTTL)), logger: logger,
                stopRequested: { stop.isRequested })
            delivery.start()
            let report = delivery.finish()
            if let failure = report.failure { throw RunError.delivery(reason: failure) }
            report.log(to: logger)
            pending = report.pendingLines > 0
            guard MetricsReport.publishDelivery(report, store: store, binaryVersion: binaryVersion,
                                                to: metricsFile.map { [$0] } ?? [], logger: logger) else {
                throw ExitCodes.metricsNotReported.exitCode
            }
        }
        if pending { throw ExitCodes.deliveryPending.exitCode }
    }

    private func setBatchesAside(store: PlanStore, logger: Logger) throws {
        let refusals = Dictionary(try store.refusedBatches().map { ($0.batchID, $0.refusal) }, uniquingKeysWith: { $1 })
        for batchID in setAside {
            let why = reason ?? refusals[batchID].flatMap { $0 } ?? "set aside by an operator"
            guard try store.setAside(batch: batchID, reason: why) else {
                throw Refusal(description: "notification batch \(batchID) is not pending (delivered, already set "
                    + "aside, or no such batch): plan-regen deliver --list-refused lists the refused ones")
            }
            logger.notice("notification batch set aside: a dead letter, never delivered",
                          metadata: ["batch_id": "\(batchID)", "reason": "\(why)"])
        }
    }

    /// The refused and set-aside batches, one per line.
    static func table(_ batches: [RefusedBatch]) -> String {
        guard !batches.isEmpty else { return "no refused or set-aside notification batch\n" }
        var text = "batch  run  lines  created               refused               state      answer or reason\n"
        for batch in batches {
            let state = batch.setAsideAt == nil ? "refused" : "set aside"
            let why = batch.setAsideAt == nil ? batch.refusal ?? "" : batch.setAsideReason ?? ""
            text += "\(batch.batchID)  \(batch.runID)  \(batch.lines)  \(batch.createdAt.rfc3339)  "
                + "\(batch.refusedAt?.rfc3339 ?? "-")  \(state)  \(why)\n"
        }
        return text
    }
}

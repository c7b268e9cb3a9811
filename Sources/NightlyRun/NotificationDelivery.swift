import Dispatch
import Foundation
import Logging
import PlanStore
import Synchronization
import Webhooks

/// Where delivered lines go, one request at a time: a webhook (`WebhookClient`), or for
/// `plan-regen deliver` without a URL, stdout or a file (`NotificationSink`).
public protocol LinePoster: AnyObject, Sendable {
    /// The destination as messages show it (a URL's password redacted).
    var destination: String { get }
    /// Sends `body`, whole lines. Throws only when the destination cannot take lines at
    /// all (a file's write error); a webhook's every ending is a `WebhookOutcome`.
    func post(_ body: [UInt8], whileSending: (() -> Void)?) throws -> WebhookOutcome
}

extension WebhookClient: LinePoster {
    public var destination: String { endpoint.redacted }
}

extension NotificationSink: LinePoster {
    public var destination: String { output.destination }

    /// Written (and, for a file, synced): acknowledged as a 2xx would be.
    public func post(_ body: [UInt8], whileSending: (() -> Void)?) throws -> WebhookOutcome {
        try emit(lines: body)
        return .answered(status: 200, retryAfterSeconds: nil, firstBodyLine: "")
    }
}

/// How a process delivers the outbox.
public struct DeliverySettings: Sendable {
    /// `--delivery-time-limit`: how long failing requests are retried before the run gives
    /// up on the receiver (its lines stay pending for the next run or `deliver`), and how
    /// long a run waits for delivery after it finished planning.
    public var timeLimit: Duration
    public var schedule: RetrySchedule
    /// A request carries at most this many lines and bytes (a longer single line alone).
    public var maximumLinesPerRequest: Int
    public var maximumBytesPerRequest: Int
    /// Committed lines held in memory for the delivery thread; past this only the batches'
    /// ids are queued, and their lines are read back from the outbox in their turn.
    public var queueLimitBytes: Int
    /// A delivery claim lapses this long after its last renewal (a dead process's batches
    /// are then taken over; at once on the same machine).
    public var claimTTL: Duration

    public init(timeLimit: Duration = .seconds(300), schedule: RetrySchedule = RetrySchedule(),
                maximumLinesPerRequest: Int = 1000, maximumBytesPerRequest: Int = 1 << 20,
                queueLimitBytes: Int = 64 << 20, claimTTL: Duration = .seconds(120)) {
        self.timeLimit = timeLimit
        self.schedule = schedule
        self.maximumLinesPerRequest = maximumLinesPerRequest
        self.maximumBytesPerRequest = maximumBytesPerRequest
        self.queueLimitBytes = queueLimitBytes
        self.claimTTL = claimTTL
    }
}

/// What one process's delivery did, for the summary line, the exit code and the metrics.
public struct DeliveryReport: Sendable, Equatable {
    public var destination: String
    public var deliveredLines = 0
    public var deliveredBatches = 0
    /// Lines this process leaves pending: refused, failed until it gave up, waiting behind
    /// a user's earlier undelivered line, or not sent (a stop).
    public var pendingLines = 0
    /// Batches the receiver refused in this run (a 4xx other than 408 and 429).
    public var refusedBatches = 0
    /// Lines of batches another live process was delivering.
    public var linesLeftToOthers = 0
    public var requests = 0
    public var retries = 0
    public var failures: [String: Int] = [:]
    /// The requests' time in total, and the longest wait of a batch from its commit (or
    /// from when this process took it over) to its acknowledgement.
    public var requestSeconds = 0.0
    public var longestDeliverySeconds = 0.0
    /// The receiver kept failing for `DeliverySettings.timeLimit`: nothing more was tried.
    public var gaveUp = false
    /// A database error ended the delivery (the caller fails with it).
    public var failure: String?

    public init(destination: String) {
        self.destination = destination
    }
}

extension DeliveryReport {
    /// The delivery's outcome in one line: info when everything went, warning when lines wait.
    public func log(to logger: Logger) {
        let metadata: Logger.Metadata = [
            "destination": "\(destination)", "delivered": "\(deliveredLines)", "pending": "\(pendingLines)",
            "refused_batches": "\(refusedBatches)", "left_to_others": "\(linesLeftToOthers)",
            "requests": "\(requests)", "retries": "\(retries)",
        ]
        if pendingLines > 0 {
            logger.warning("""
                notifications left pending: the receiver was down or refused them; the next run or \
                plan-regen deliver sends them
                """, metadata: metadata)
        } else {
            logger.info("notifications delivered", metadata: metadata)
        }
    }
}

/// Delivers notification batches on a thread of its own, so planning never waits for the
/// receiver: first the batches earlier runs left pending, oldest first, then each batch
/// the run commits (`submit`), in order. A batch is marked emitted only once every request
/// of it was answered 2xx (or, for a file, written and synced).
///
/// Order per user: the lines of a user whose earlier line is still undelivered (refused,
/// failed, or being posted by another process) are not posted before it; their whole
/// batch stays pending for the next run or `deliver`. Within a run every user is in one
/// batch, so this only ever holds back batches behind older ones.
///
/// Claims (sql/0019): a batch is posted only under this process's claim, renewed while it
/// waits; a run writes its own batches already claimed. At the end the claims left are
/// released, so the next process takes the pending batches at once.
public final class NotificationDelivery: @unchecked Sendable {
    private let poster: any LinePoster
    /// Used only on the delivery thread (and, after it ended, to release the claims).
    private let store: any DeliveryStore
    public let claim: DeliveryClaim
    private let settings: DeliverySettings
    private let logger: Logger
    private let stopRequested: @Sendable () -> Bool

    private struct Queued {
        var batchID: Int64
        /// Nil when the queue held too many bytes: the lines are read back from the outbox.
        var lines: BatchLines?
        var lineCount: Int
        var since: ContinuousClock.Instant
    }

    /// A batch's lines back to back, where each ends (after its line feed), and their users.
    private struct BatchLines {
        var bytes: [UInt8]
        var lineEnds: [Int]
        var users: [Int64]

        init(bytes: [UInt8], lineEnds: [Int], users: [Int64]) {
            self.bytes = bytes
            self.lineEnds = lineEnds
            self.users = users
        }

        init(_ lines: [DeliveryLine]) {
            bytes = []
            lineEnds = []
            for line in lines {
                bytes.append(contentsOf: line.payload.utf8)
                bytes.append(0x0A)
                lineEnds.append(bytes.count)
            }
            users = lines.map(\.userID)
        }
    }

    private struct State {
        var queue: [Queued] = []
        var next = 0
        var queuedBytes = 0
        var planningDoneAt: ContinuousClock.Instant?
        var stopNow = false
        /// Lines `submit` did not queue (delivery already given up, or a stop).
        var notQueuedLines = 0
        var gaveUp = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let result = Mutex<DeliveryReport?>(nil)
    #if PLAN_REGEN_FAULT_INJECTION
    /// TEST-ONLY (`PLAN_REGEN_FAULT` with a `*-post` point): kills the process at one request.
    public let fault: FaultInjection?
    #endif
    private let requestsMade = Atomic<Int>(0)

    public init(poster: any LinePoster, store: any DeliveryStore, claim: DeliveryClaim, settings: DeliverySettings,
                logger: Logger, stopRequested: @escaping @Sendable () -> Bool = { false }) {
        self.poster = poster
        self.store = store
        self.claim = claim
        self.settings = settings
        self.logger = logger
        self.stopRequested = stopRequested
        #if PLAN_REGEN_FAULT_INJECTION
        let fault = (try? FaultInjection.fromEnvironment()) ?? nil
        self.fault = fault.flatMap { [.beforePost, .midPost, .afterPost].contains($0.point) ? $0 : nil }
        #endif
    }

    /// The claimant key of this process (`ProcessIdentity`), for `DeliveryClaim`.
    public static var claimant: String {
        ProcessIdentity.current.key ?? "\(ProcessIdentity.current.host)/\(ProcessIdentity.current.pid)"
    }

    /// Starts the delivery thread.
    public func start() {
        let thread = Thread { [self] in
            let report = deliverAll()
            result.withLock { $0 = report }
            finished.signal()
        }
        thread.name = "delivery"
        thread.start()
    }

    /// Hands a committed batch's lines to the delivery thread (its row was written claimed
    /// by this process: `BatchWrite.deliveryClaim`). Returns at once. Past
    /// `queueLimitBytes` only the batch's id is queued; its lines are read back from the
    /// outbox when their turn comes.
    public func submit(batchID: Int64, write: BatchWrite) {
        var lineEnds: [Int] = []
        lineEnds.reserveCapacity(write.outbox.count)
        for line in write.outbox { lineEnds.append(line.payload.upperBound + 1) }
        let lines = BatchLines(bytes: write.notificationLines, lineEnds: lineEnds, users: write.outbox.map(\.userID))
        let queued = state.withLock { state -> Bool in
            guard !state.gaveUp, !state.stopNow else {
                state.notQueuedLines += lineEnds.count
                return false
            }
            let keepLines = state.queuedBytes + lines.bytes.count <= settings.queueLimitBytes
            state.queue.append(Queued(batchID: batchID, lines: keepLines ? lines : nil, lineCount: lineEnds.count,
                                      since: .now))
            if keepLines { state.queuedBytes += lines.bytes.count }
            return true
        }
        if queued { wake.signal() }
    }

    /// Planning is done: delivers what is queued (within the time limit) and returns what
    /// was delivered and what is left pending.
    public func finish() -> DeliveryReport {
        state.withLock { $0.planningDoneAt = .now }
        wake.signal()
        return waitForEnd()
    }

    /// Stops at once (the run failed): the request in flight ends, nothing more is sent.
    public func abandon() {
        state.withLock { $0.stopNow = true }
        wake.signal()
        _ = waitForEnd()
    }

    private func waitForEnd() -> DeliveryReport {
        finished.wait()
        finished.signal()  // a second caller returns at once too
        let report = result.withLock { $0 } ?? DeliveryReport(destination: poster.destination)
        do {
            try store.releaseDeliveryClaims(of: claim.claimant)
        } catch {
            logger.warning("could not release this process's delivery claims; they lapse on their own",
                           metadata: ["error": "\(error)"])
        }
        return report
    }

    // MARK: - The delivery thread

    private var lastRenewal = ContinuousClock.now
    private var failingSince: ContinuousClock.Instant?

    private func deliverAll() -> DeliveryReport {
        var report = DeliveryReport(destination: poster.destination)
        var blockedUsers = Set<Int64>()
        do {
            try deliverPendingBatches(&report, blockedUsers: &blockedUsers)
            while let item = nextQueued() {
                state.withLock { $0.queuedBytes -= item.lines?.bytes.count ?? 0 }
                guard !isGivenUp else {
                    report.pendingLines += item.lineCount
                    continue
                }
                let lines = try item.lines ?? BatchLines(store.lines(ofBatch: item.batchID))
                if lines.users.contains(where: blockedUsers.contains) {
                    blockedUsers.formUnion(lines.users)
                    report.pendingLines += item.lineCount
                    logger.notice("a batch waits behind its users' earlier undelivered lines; it stays pending",
                                  metadata: ["batch_id": "\(item.batchID)"])
                    continue
                }
                try deliver(batchID: item.batchID, lines: lines, since: item.since, report: &report,
                            blockedUsers: &blockedUsers)
            }
        } catch {
            report.failure = "\(error)"
            state.withLock { $0.stopNow = true }
            while let item = nextQueued() { report.pendingLines += item.lineCount }
        }
        report.pendingLines += state.withLock { $0.notQueuedLines }
        report.gaveUp = state.withLock { $0.gaveUp }
        return report
    }

    /// The batches earlier runs left pending, oldest first (not this process's own).
    private func deliverPendingBatches(_ report: inout DeliveryReport, blockedUsers: inout Set<Int64>) throws {
        let pending = try store.pendingBatches().filter { $0.claimedBy != claim.claimant }
        guard !pending.isEmpty else { return }
        let gone = Set(pending.compactMap(\.claimedBy).filter(ProcessIdentity.isGone(key:)))
        var delivered = 0
        for batch in pending {
            if isGivenUp || isStopping {
                report.pendingLines += batch.lines
                continue
            }
            let heldElsewhere = batch.claimedBy.map { !gone.contains($0) } ?? false
            guard !heldElsewhere,
                  try store.claimDelivery(of: batch.batchID, claim: claim, takingOverFrom: Array(gone)) else {
                blockedUsers.formUnion(try store.users(ofBatches: [batch.batchID]))
                report.linesLeftToOthers += batch.lines
                continue
            }
            let lines = BatchLines(try store.lines(ofBatch: batch.batchID))
            if lines.users.contains(where: blockedUsers.contains) {
                blockedUsers.formUnion(lines.users)
                report.pendingLines += lines.lineEnds.count
                continue
            }
            let before = report.deliveredLines
            try deliver(batchID: batch.batchID, lines: lines, since: .now, report: &report,
                        blockedUsers: &blockedUsers)
            delivered += report.deliveredLines - before
        }
        if delivered > 0 {
            logger.notice("delivered notifications left pending by earlier runs", metadata: [
                "notifications": "\(delivered)", "destination": "\(poster.destination)",
            ])
        }
    }

    private var isGivenUp: Bool { state.withLock { $0.gaveUp } }
    private var isStopping: Bool { stopRequested() || state.withLock { $0.stopNow } }

    /// The next queued batch; nil once planning is done and the queue is empty, or on a stop.
    private func nextQueued() -> Queued? {
        while true {
            let (item, ended) = state.withLock { state -> (Queued?, Bool) in
                if state.next < state.queue.count {
                    let item = state.queue[state.next]
                    state.queue[state.next].lines = nil  // the memory goes as the batch is taken
                    state.next += 1
                    if state.next == state.queue.count {
                        state.queue.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                    return (item, false)
                }
                return (nil, state.planningDoneAt != nil || state.stopNow)
            }
            if let item { return item }
            if ended { return nil }
            _ = wake.wait(timeout: .now() + .milliseconds(250))
            try? renewClaimsIfDue()
        }
    }

    private enum RequestResult {
        case delivered
        /// 413 for a request of more than one line: sent again in halves.
        case tooLarge
        case refused(String)
        case notDelivered
    }

    /// Posts one batch, request by request, and marks it once all were acknowledged. A
    /// receiver that answers 413 gets the rest of the batch in requests of half as many
    /// lines, down to one line a request (a single line refused so is refused for good).
    private func deliver(batchID: Int64, lines batch: BatchLines, since: ContinuousClock.Instant,
                         report: inout DeliveryReport, blockedUsers: inout Set<Int64>) throws {
        let lineEnds = batch.lineEnds
        var linesPerRequest = settings.maximumLinesPerRequest
        var start = 0
        var lineIndex = 0
        while lineIndex < lineEnds.count {
            var end = lineIndex
            while end < lineEnds.count, end - lineIndex < linesPerRequest,
                  end == lineIndex || lineEnds[end] - start <= settings.maximumBytesPerRequest {
                end += 1
            }
            let body = Array(batch.bytes[start..<lineEnds[end - 1]])
            switch try send(body, lineCount: end - lineIndex, batchID: batchID, report: &report) {
            case .delivered:
                break
            case .tooLarge:
                linesPerRequest = (end - lineIndex) / 2
                continue
            case .refused(let refusal):
                try store.recordRefusal(of: batchID, refusal: refusal)
                report.refusedBatches += 1
                fallthrough
            case .notDelivered:
                report.pendingLines += lineEnds.count
                blockedUsers.formUnion(batch.users)
                return
            }
            start = lineEnds[end - 1]
            lineIndex = end
        }
        try store.markDelivered(batch: batchID)
        report.deliveredLines += lineEnds.count
        report.deliveredBatches += 1
        let waited = ContinuousClock.now - since
        report.longestDeliverySeconds = max(report.longestDeliverySeconds, Self.seconds(waited))
    }

    /// One request, retried with backoff while the receiver fails and time is left.
    private func send(_ body: [UInt8], lineCount: Int, batchID: Int64,
                      report: inout DeliveryReport) throws -> RequestResult {
        var failures = 0
        while true {
            // After SIGTERM each request still gets its one attempt, never a retry.
            if state.withLock({ $0.stopNow }) || isGivenUp { return .notDelivered }
            let number = requestsMade.add(1, ordering: .relaxed).newValue
            #if PLAN_REGEN_FAULT_INJECTION
            let injected = fault.flatMap { $0.call == number ? $0 : nil }
            if injected?.point == .beforePost { injected?.killProcess() }
            let whileSending: (() -> Void)? = injected.flatMap { fault in
                fault.point == .midPost ? { fault.killProcess() } : nil
            }
            #else
            let whileSending: (() -> Void)? = nil
            _ = number
            #endif
            let started = ContinuousClock.now
            let outcome = try poster.post(body, whileSending: whileSending)
            report.requests += 1
            report.requestSeconds += Self.seconds(ContinuousClock.now - started)
            try renewClaimsIfDue()
            switch outcome.verdict {
            case .delivered:
                #if PLAN_REGEN_FAULT_INJECTION
                if injected?.point == .afterPost { injected?.killProcess() }
                #endif
                failingSince = nil
                return .delivered
            case .refused(let failure):
                report.failures[failure.rawValue, default: 0] += 1
                let refusal = Self.describe(outcome)
                if case .answered(413, _, _) = outcome, lineCount > 1 {
                    logger.warning("the webhook receiver refused a request as too large; sending its lines in halves",
                                   metadata: ["batch_id": "\(batchID)", "lines": "\(lineCount)",
                                              "response": "\(refusal)", "destination": "\(poster.destination)"])
                    return .tooLarge
                }
                logger.error("""
                    the webhook receiver refused a request: not retried in this run; the batch stays pending and \
                    its users' later lines wait behind it. Fix what the receiver says (a wrong secret: 401), or \
                    set the batch aside: plan-regen deliver --set-aside \(batchID)
                    """, metadata: ["batch_id": "\(batchID)", "response": "\(refusal)",
                                    "destination": "\(poster.destination)"])
                return .refused(refusal)
            case .retry(let failure):
                report.failures[failure.rawValue, default: 0] += 1
                failures += 1
                if stopRequested() { return .notDelivered }
                let now = ContinuousClock.now
                let since = failingSince ?? now
                failingSince = since
                let retryAfter: Double? = if case .answered(_, let seconds, _) = outcome { seconds } else { nil }
                let delay = settings.schedule.delaySeconds(afterFailures: failures, retryAfterSeconds: retryAfter,
                                                           random: Double.random(in: 0..<1))
                if now + .milliseconds(Int64(delay * 1000)) > retryDeadline(failingSince: since) {
                    state.withLock { $0.gaveUp = true }
                    logger.error("""
                        the webhook receiver kept failing for the delivery time limit: this run sends nothing \
                        more; the lines stay pending for the next run or plan-regen deliver
                        """, metadata: ["batch_id": "\(batchID)", "response": "\(Self.describe(outcome))",
                                        "failures": "\(failures)", "destination": "\(poster.destination)"])
                    return .notDelivered
                }
                logger.warning("a webhook request failed; retrying", metadata: [
                    "batch_id": "\(batchID)", "response": "\(Self.describe(outcome))", "attempt": "\(failures)",
                    "failure_class": "\(failure.rawValue)",
                    "retry_in_s": "\(String(format: "%.1f", delay))",
                ])
                report.retries += 1
                try wait(seconds: delay)
            }
        }
    }

    /// When this process stops retrying: `timeLimit` after the receiver began failing, and
    /// at most `timeLimit` after planning ended.
    private func retryDeadline(failingSince: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let limit = settings.timeLimit
        let planningDone = state.withLock { $0.planningDoneAt }
        return min(failingSince + limit, planningDone.map { $0 + limit } ?? failingSince + limit)
    }

    /// Waits `seconds`, renewing the claims every quarter of their TTL; ends early on a stop.
    private func wait(seconds: Double) throws {
        let until = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < until, !isStopping {
            let slice = min(until - ContinuousClock.now, .milliseconds(200))
            Thread.sleep(forTimeInterval: Self.seconds(slice))
            try renewClaimsIfDue()
        }
    }

    private func renewClaimsIfDue() throws {
        guard ContinuousClock.now - lastRenewal >= settings.claimTTL / 4 else { return }
        try store.renewDeliveryClaims(claim)
        lastRenewal = .now
    }

    /// `HTTP 401: invalid signature`, or the transport failure's class and message.
    static func describe(_ outcome: WebhookOutcome) -> String {
        switch outcome {
        case .answered(let status, _, let firstBodyLine):
            firstBodyLine.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(firstBodyLine.prefix(200))"
        case .failed(let failure, let message):
            "\(failure.rawValue): \(message)"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

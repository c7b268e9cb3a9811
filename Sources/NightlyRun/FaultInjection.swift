#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if PLAN_REGEN_FAULT_INJECTION
/// TEST-ONLY, and only in debug builds (`PLAN_REGEN_FAULT_INJECTION`, Package.swift): a
/// release binary has no trace of it. Kills the process with SIGKILL — exactly what `kill -9` does — at a chosen
/// point of a run, so the reliability tests (Tests/ReliabilityTests) can prove that a run
/// killed there loses nothing. Never set `PLAN_REGEN_FAULT` in production.
///
/// The points are counted in calls to `NotificationSink.emit`, which a run makes once per
/// committed batch that has notifications (and once for lines an earlier run left
/// pending), always after the batch's transaction committed:
///
/// ```
/// PLAN_REGEN_FAULT=before-emit:3   die before writing the 3rd call's lines: plans committed, lines not emitted
/// PLAN_REGEN_FAULT=mid-emit:2      die after writing the first half of the 2nd call's lines
/// PLAN_REGEN_FAULT=after-emit:1    die after writing the 1st call's lines, before they are marked emitted
/// ```
///
/// With a webhook (`--notifications https://…`) the points are counted in requests
/// (`WebhookDelivery`), each a POST of at most 1,000 lines:
///
/// ```
/// PLAN_REGEN_FAULT=before-post:2   die before sending the 2nd request
/// PLAN_REGEN_FAULT=mid-post:1      die once part of the 1st request's body is sent, before its answer
/// PLAN_REGEN_FAULT=after-post:3    die after the 3rd request was answered 2xx, before its batch is marked
/// ```
public struct FaultInjection: Sendable, Equatable, CustomStringConvertible {
    public enum Point: String, Sendable, CaseIterable {
        case beforeEmit = "before-emit"
        case midEmit = "mid-emit"
        case afterEmit = "after-emit"
        case beforePost = "before-post"
        case midPost = "mid-post"
        case afterPost = "after-post"
    }

    public static let environmentVariable = "PLAN_REGEN_FAULT"

    public var point: Point
    /// Which call to `emit`, or which request (1 = the first of this process).
    public var call: Int

    public init(point: Point, call: Int) {
        self.point = point
        self.call = call
    }

    /// Parses `point:call`, e.g. `before-emit:3`.
    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let point = Point(rawValue: String(parts[0])),
              let call = Int(parts[1]), call >= 1 else { return nil }
        self.init(point: point, call: call)
    }

    /// The fault `PLAN_REGEN_FAULT` asks for, nil when it is unset or empty.
    public static func fromEnvironment() throws -> FaultInjection? {
        guard let raw = getenv(environmentVariable) else { return nil }
        let text = String(cString: raw)
        if text.isEmpty { return nil }
        guard let fault = FaultInjection(text) else { throw Malformed(value: text) }
        return fault
    }

    public var description: String { "\(point.rawValue):\(call)" }

    /// Dies at once, without unwinding, flushing or closing anything.
    public func killProcess() -> Never {
        kill(getpid(), SIGKILL)
        fatalError("SIGKILL did not end the process")
    }

    /// `PLAN_REGEN_FAULT` holds something other than `point:call`.
    public struct Malformed: Error, CustomStringConvertible {
        public var value: String
        public var description: String {
            let points = Point.allCases.map(\.rawValue).joined(separator: ", ")
            return "\(FaultInjection.environmentVariable)='\(value)' is not point:call with point one of "
                + "\(points) (a test-only setting: unset it)"
        }
    }
}
#endif

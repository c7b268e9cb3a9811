/// When to try a request again: exponential backoff with jitter, honouring the receiver's
/// `Retry-After`, within the time a run has left for retrying.
public struct RetrySchedule: Sendable, Equatable {
    /// The wait after the first failure, before jitter; it doubles with each further one.
    public var firstDelaySeconds: Double
    /// No computed wait is longer (a `Retry-After` may be, within the time left).
    public var maximumDelaySeconds: Double

    public init(firstDelaySeconds: Double = 0.5, maximumDelaySeconds: Double = 30) {
        self.firstDelaySeconds = firstDelaySeconds
        self.maximumDelaySeconds = maximumDelaySeconds
    }

    /// The wait before attempt `failures + 1`: a random point in the upper half of the
    /// exponential step (`random` in 0..<1; jitter spreads the retries of many processes),
    /// or the receiver's `Retry-After` when it asks for longer.
    public func delaySeconds(afterFailures failures: Int, retryAfterSeconds: Double?, random: Double) -> Double {
        let step = min(maximumDelaySeconds, firstDelaySeconds * Double(1 << min(max(failures - 1, 0), 20)))
        let jittered = step / 2 + step / 2 * random
        return max(jittered, retryAfterSeconds ?? 0)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlanRules

/// The current instant from the system clock, to the microsecond.
@Sendable public func wallClockNow() -> Instant {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Instant(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
}

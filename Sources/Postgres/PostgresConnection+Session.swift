extension PostgresConnection {
    /// Sets this session's `statement_timeout` and `lock_timeout` so that a stuck query
    /// or a lock held by the app fails the job with a clear error instead of hanging it.
    /// nil leaves a setting unchanged; zero disables the limit.
    public func setSessionParameters(statementTimeout: Duration?, lockTimeout: Duration?) throws {
        for (name, duration) in [("statement_timeout", statementTimeout), ("lock_timeout", lockTimeout)] {
            guard let duration else { continue }
            try execute(
                "SELECT set_config($1, $2, false)",
                [name, "\(Self.milliseconds(duration))ms"],
                purpose: "setting \(name)")
        }
    }

    /// Whole milliseconds, rounded up so a tiny positive limit never becomes "no limit".
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let fraction = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        return seconds * 1000 + fraction
    }
}

extension PostgresConnection {
    /// Settings the job applies to every connection on top of the conninfo.
    public struct Options: Sendable {
        /// Shown in `pg_stat_activity.application_name`, so a DBA sees who is connected.
        /// A conninfo's own `application_name` takes precedence.
        public var applicationName: String
        /// Gives up on an unreachable host after this many seconds (libpq's
        /// `connect_timeout`; it counts whole seconds, at least 2). A conninfo's own
        /// `connect_timeout` takes precedence.
        public var connectTimeoutSeconds: Int

        public init(applicationName: String = "plan-regen", connectTimeoutSeconds: Int = 10) {
            self.applicationName = applicationName
            self.connectTimeoutSeconds = connectTimeoutSeconds
        }
    }
}

/// A failure that ends a run, said so that ops know what to do.
public enum RunError: Error, CustomStringConvertible, Sendable {
    case notificationFile(path: String, reason: String)
    case notificationWrite(destination: String, reason: String)
    case timeZoneDatabase(reason: String)

    public var description: String {
        switch self {
        case .notificationFile(let path, let reason):
            return "cannot open notifications file \(path): \(reason)"
        case .notificationWrite(let destination, let reason):
            return "cannot write notifications to \(destination): \(reason); "
                + "they stay in the outbox and the next run emits them"
        case .timeZoneDatabase(let reason):
            return "cannot read the system time zone database: \(reason); install the tzdata package"
        }
    }
}

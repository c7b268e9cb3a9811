/// The URL schemes libpq accepts, and a check for the others.
///
/// libpq reads a conninfo as a URL only when it starts with `postgresql://` or
/// `postgres://`; anything else without an `=` becomes a database name. A typo such as
/// `postgresq://db.internal/app` would then connect to the local server and look for a
/// database of that name, so such a string is refused before libpq sees it.
enum ConnectionStringScheme {
    static let accepted = ["postgresql", "postgres"]

    /// The scheme of `conninfo` when it starts like a URL (`scheme://`) with a scheme
    /// libpq does not accept; nil for accepted URLs, `key=value` strings and plain
    /// database names.
    static func unsupportedScheme(in conninfo: String) -> String? {
        let text = conninfo.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }  // "host=… dbname=x://y": not a URL, libpq parses key=value pairs
        return accepted.contains(String(scheme)) ? nil : String(scheme)
    }

    /// The error for a conninfo with an unsupported scheme: names the scheme only, never
    /// the rest of the string (it may hold a password).
    static func refusal(scheme: String) -> PostgresError {
        PostgresError(
            code: .connectionFailed, purpose: "connecting",
            message: "'\(scheme)://' is not a PostgreSQL URL scheme: write postgresql://… or postgres://…, "
                + "or key=value pairs (host=… dbname=…)")
    }
}

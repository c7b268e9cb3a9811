extension PostgresError {
    /// A five-character SQLSTATE (PostgreSQL's "Appendix A. Error Codes"), named where code
    /// branches on it. A class constant, ending in `000` (`.connectionException`, 08000),
    /// matches every code of its class in a `switch` or `catch … where` (08006 too).
    public struct SQLState: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let code: String

        public init(_ code: String) { self.code = code }
        public init(stringLiteral code: String) { self.code = code }

        public var description: String { code }

        public static let connectionException: SQLState = "08000"
        public static let undefinedTable: SQLState = "42P01"
        public static let lockNotAvailable: SQLState = "55P03"
        public static let queryCanceled: SQLState = "57014"
        public static let adminShutdown: SQLState = "57P01"
        public static let crashShutdown: SQLState = "57P02"
        public static let cannotConnectNow: SQLState = "57P03"

        /// `value` is `pattern`, or of the class `pattern` names.
        public static func ~= (pattern: SQLState, value: SQLState?) -> Bool {
            guard let value else { return false }
            return pattern.code.hasSuffix("000") ? value.code.prefix(2) == pattern.code.prefix(2) : value == pattern
        }
    }
}

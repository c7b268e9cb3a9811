import CLibPQ

/// The column names of a result, with lookup by name. Names are exactly as the server
/// reports them (folded to lowercase unless the SQL quoted them).
public struct PostgresColumns: Sendable {
    public let names: [String]
    private let indexByName: [String: Int]

    init(result: OpaquePointer) {
        let names = (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
        self.names = names
        // The first of duplicate names wins, as with PQfnumber.
        self.indexByName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The position of the column called `name`, or nil.
    public func index(of name: String) -> Int? { indexByName[name] }
}

/// A column of a row, by position (`0`) or by name (`"user_id"`).
public protocol PostgresColumnReference {
    /// The column's position among `columns`, or nil when there is no such column.
    func columnIndex(in columns: PostgresColumns) -> Int?
    /// How error messages name the column.
    var columnDescription: String { get }
}

extension Int: PostgresColumnReference {
    public func columnIndex(in columns: PostgresColumns) -> Int? {
        columns.names.indices.contains(self) ? self : nil
    }

    public var columnDescription: String { "#\(self)" }
}

extension String: PostgresColumnReference {
    public func columnIndex(in columns: PostgresColumns) -> Int? { columns.index(of: self) }

    public var columnDescription: String { "\"\(self)\"" }
}

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

    /// The column called `name`, to read many rows by it (a missing one fails at the first read).
    public func column(_ name: String) -> PostgresColumn { PostgresColumn(position: index(of: name), name: name) }
}

/// A column of a row: its name (`"user_id"`), or a `PostgresColumn` found by name once.
public protocol PostgresColumnReference {
    /// The column's position among `columns`, or nil when there is no such column.
    func columnIndex(in columns: PostgresColumns) -> Int?
    /// How error messages name the column.
    var columnDescription: String { get }
}

extension String: PostgresColumnReference {
    public func columnIndex(in columns: PostgresColumns) -> Int? { columns.index(of: self) }

    public var columnDescription: String { "\"\(self)\"" }
}

/// A column found by name once (`PostgresColumns.column(_:)`) and read by its position in
/// every row of that result: for loops over many rows, where looking names up in every
/// row costs about 20 ns per field.
public struct PostgresColumn: PostgresColumnReference {
    let position: Int?
    public let name: String

    public func columnIndex(in columns: PostgresColumns) -> Int? {
        position.flatMap { columns.names.indices.contains($0) ? $0 : nil }
    }

    public var columnDescription: String { name.columnDescription }
}

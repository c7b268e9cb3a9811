import Postgres

/// Tests may read a column by its position (`row.int(0)` for `SELECT count(*) …`); the
/// job's own code reads columns by name only, so the conformance lives here.
extension Int: PostgresColumnReference {
    public func columnIndex(in columns: PostgresColumns) -> Int? {
        columns.names.indices.contains(self) ? self : nil
    }

    public var columnDescription: String { "#\(self)" }
}

import CLibPQ

/// The rows of one successful statement. Owns its `PGresult` and frees it (`PQclear`)
/// when the last reference goes, including the rows handed out from it.
///
/// A collection of `PostgresRow`s: `for row in result`, `result.first`, `result[0]`.
public final class PostgresResult: RandomAccessCollection {
    let handle: OpaquePointer
    /// The caller's purpose, repeated in decoding errors.
    let purpose: String
    public let columns: PostgresColumns
    /// For rows in binary format (`SQLQuery.binaryResults()`), each column's type OID,
    /// which `PostgresRow` decodes by; 0 for a text-like column, whose binary form is its
    /// text. Empty for rows in text format.
    let binaryTypes: [UInt32]

    /// Takes ownership of `handle`. `columns` lets a stream of one-row results share
    /// one name lookup table instead of rebuilding it per row.
    init(handle: OpaquePointer, purpose: String, columns: PostgresColumns? = nil) {
        self.handle = handle
        self.purpose = purpose
        self.columns = columns ?? PostgresColumns(result: handle)
        binaryTypes = PQbinaryTuples(handle) == 1
            ? (0..<PQnfields(handle)).map { column in
                let type = PQftype(handle, column)
                return PostgresRow.isTextLike(type) ? 0 : type
            } : []
    }

    deinit {
        PQclear(handle)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(PQntuples(handle)) }

    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row \(position) out of range 0..<\(endIndex)")
        return PostgresRow(result: self, index: position)
    }

    /// Rows inserted, updated, deleted, copied, … by the statement (`PQcmdTuples`);
    /// 0 for statements that report no count.
    public var affectedRows: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// The one row of a result that must have exactly one.
    ///
    /// - Throws: `PostgresError.Code.unexpectedResult` naming the purpose and row count.
    public func singleRow() throws -> PostgresRow {
        guard count == 1, let row = first else {
            throw PostgresError(
                code: .unexpectedResult, purpose: purpose,
                message: "expected exactly one row, got \(count)")
        }
        return row
    }
}

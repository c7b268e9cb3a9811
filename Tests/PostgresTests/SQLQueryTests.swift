import Postgres
import Testing

/// Values interpolated into an `SQLQuery` become parameters numbered in order, also
/// through nested fragments; SQL the program wrote goes in only by name.
@Suite struct SQLQueryTests {
    @Test func valuesAreNumberedInOrderAcrossNestedFragments() throws {
        let inner: SQLQuery = "b = \(2) AND c = \(bind: "three")"
        let query: SQLQuery = "SELECT \(1) WHERE \(sql: inner) AND d IN (\(unescaped: "4, 5")) AND e = \(Int64(6))"
        #expect(query.sql == "SELECT $1 WHERE b = $2 AND c = $3 AND d IN (4, 5) AND e = $4")
    }

    @Test func aClassSQLStateMatchesEveryCodeOfItsClass() {
        func isConnectionException(_ state: PostgresError.SQLState?) -> Bool {
            switch state {
            case .connectionException: true
            default: false
            }
        }
        #expect(isConnectionException("08006"))
        #expect(isConnectionException("08000"))
        #expect(!isConnectionException("57P01"))
        #expect(!isConnectionException(nil))
        #expect(PostgresError.SQLState.lockNotAvailable ~= "55P03")
        #expect(!(PostgresError.SQLState.lockNotAvailable ~= "55000"))
    }
}

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
}

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

    @Test func theServerReceivesEachValueAtItsPlace() throws {
        let condition: SQLQuery = "\(bind: "x") || \(bind: "y")"
        let row = try serverConnection().query(
            "SELECT \(7)::int AS seven, \(sql: condition) AS xy, \(bind: nil as String?)::text AS nothing",
            purpose: "echoing numbered parameters"
        ).singleRow()
        #expect(try row.int("seven") == 7)
        #expect(try row.string("xy") == "xy")
        #expect(try row.optionalString("nothing") == nil)
    }

    @Test func aNulCharacterInTheSQLIsRefusedBeforeSending() throws {
        let error = try #require(throws: PostgresError.self) {
            try serverConnection().query("SELECT 1 AS \(identifier: "a\u{0}b")", purpose: "naming a column")
        }
        #expect(error.code == .invalidParameter)
    }

    @Test func aColumnFoundByNameReadsEveryRow() throws {
        let rows = try serverConnection().query(
            "SELECT g AS n, g * 2 AS doubled FROM generate_series(1, 3) g", purpose: "doubling")
        let doubled = rows.columns.column("doubled")
        #expect(try rows.map { try $0.int(doubled) } == [2, 4, 6])
        let tripled = rows.columns.column("tripled")
        let missing = try #require(throws: PostgresError.self) { try rows[0].int(tripled) }
        #expect(missing.code == .decodingFailed)
        #expect(missing.description.contains("\"tripled\": no such column"))
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

import Postgres
import Testing

@Suite struct StreamingTests {
    @Test func streamsOneHundredThousandRowsOneByOne() throws {
        let connection = try serverConnection()
        let observer = try serverConnection()
        var count = 0
        var sum: Int64 = 0
        var stateAtFirstRow: String?
        let delivered = try connection.forEachRow(
            "SELECT g AS id, 'row ' || g AS label FROM generate_series(1, \(100_000)::int) g",
            purpose: "streaming numbers"
        ) { row in
            if count == 0 {
                // The first row is in hand while the server is still sending the rest
                // (≈3 MB, far more than the socket buffers): the query is still active.
                stateAtFirstRow = try observer.query(
                    "SELECT state FROM pg_stat_activity WHERE pid = \(connection.backendPID)",
                    purpose: "watching the streaming backend"
                ).singleRow().string(0)
            }
            count += 1
            let id = try row.int64("id")
            sum += id
            #expect(try row.string("label") == "row \(id)")
            return .continue
        }
        #expect(delivered == 100_000)
        #expect(count == 100_000)
        // 1 + … + 100,000 = 5,000,050,000
        #expect(sum == 5_000_050_000)
        #expect(stateAtFirstRow == "active")
    }

    @Test func stoppingEarlyCancelsTheRestAndKeepsTheConnection() throws {
        let connection = try serverConnection()
        var seen: [Int64] = []
        let delivered = try connection.forEachRow(
            "SELECT g FROM generate_series(1, 50000000) g", purpose: "reading a few rows"
        ) { row in
            seen.append(try row.int64(0))
            return seen.count == 10 ? .stop : .continue
        }
        #expect(delivered == 10)
        #expect(seen == Array(1...10))
        #expect(try connection.query("SELECT 42", purpose: "checking").singleRow().int(0) == 42)
    }

    @Test func aThrowFromTheBodyIsRethrownAndTheConnectionStaysUsable() throws {
        struct Enough: Error {}
        let connection = try serverConnection()
        #expect(throws: Enough.self) {
            try connection.forEachRow("SELECT g FROM generate_series(1, 1000000) g", purpose: "reading") { _ in
                throw Enough()
            }
        }
        #expect(try connection.query("SELECT 7", purpose: "checking").singleRow().int(0) == 7)
    }

    @Test func aServerErrorMidwaySurfacesWithItsSQLState() throws {
        let connection = try serverConnection()
        var delivered = 0
        let error = try #require(throws: PostgresError.self) {
            // 1/(g − 500) divides by zero at g = 500, after rows 1…499.
            try connection.forEachRow(
                "SELECT 1 / (g - 500) FROM generate_series(1, 1000) g", purpose: "dividing"
            ) { _ in
                delivered += 1
                return .continue
            }
        }
        #expect(error.sqlState == "22012")
        #expect(error.description.contains("dividing"))
        #expect(delivered <= 499)
        #expect(try connection.query("SELECT 1", purpose: "checking").singleRow().int(0) == 1)
    }

    @Test func anEmptyResultDeliversNothing() throws {
        let connection = try serverConnection()
        let delivered = try connection.forEachRow("SELECT 1 WHERE false", purpose: "reading nothing") { _ in
            Issue.record("no row expected")
            return .continue
        }
        #expect(delivered == 0)
    }
}

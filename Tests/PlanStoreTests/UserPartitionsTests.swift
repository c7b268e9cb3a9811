@testable import PlanStore
import Postgres
import TestSupport
import Testing

/// The partition of a user is the same in Swift and in the SQL built from
/// `UserPartitions.count`, negative ids and the ends of bigint included.
@Suite struct UserPartitionsTests {
    @Test func theSQLExpressionAgreesWithSwift() throws {
        let connection = try TestDatabase.adminConnection()
        for userID: Int64 in [.min, -65, -64, -63, -1, 0, 1, 63, 64, 65, 1_000_003, .max] {
            let partition = try connection.query(
                "SELECT \(sql: UserPartitions.sql("\(userID)::bigint")) AS partition",
                purpose: "computing a partition"
            ).singleRow().int("partition")
            #expect(partition == UserPartitions.partition(of: userID), "user \(userID)")
        }
    }
}

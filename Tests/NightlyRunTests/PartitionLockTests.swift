import PlanRules
import PlanStore
import Testing

/// Two runs never process the same user: a run skips the user partitions another run
/// holds and leaves their users (and their pending notifications) to it.
@Suite struct PartitionLockTests {
    @Test func aRunSkipsThePartitionsAnotherRunHoldsAndANextRunDoesTheirUsers() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            // Users 1…8 sit in partitions 1…8 (user_id mod 64).
            for userID in Int64(1)...8 {
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(minutes: -5)))
            }
            let otherRun = try PlanStore(connection: driver.database.connect())
            #expect(try otherRun.tryLockPartitions([1, 2, 3, 4]) == [1, 2, 3, 4])

            let partial = try driver.run(at: t0)
            #expect(partial.skippedPartitions == [1, 2, 3, 4])
            #expect(partial.counts.created == 4)
            #expect(Set(try driver.history().map(\.userID)) == [5, 6, 7, 8])
            #expect(Set(try driver.emittedNotifications().map(\.userID)) == [5, 6, 7, 8])

            try otherRun.unlockPartitions([1, 2, 3, 4])
            let rest = try driver.run(at: t0.adding(minutes: 15))
            #expect(rest.skippedPartitions.isEmpty)
            #expect(rest.counts.created == 4)
            let history = try driver.history()
            #expect(history.map(\.userID) == Array(1...8))
            #expect(try driver.emittedNotifications().map(\.userID).sorted() == Array(1...8))
        }
    }
}

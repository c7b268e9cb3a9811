@testable import PlanStore
import PlanRules
import Testing

/// `PlanStore.loadUsers` reads a dense ascending batch by id range and anything else by a
/// probe per id (`UserLookup`): both must read the same users, in the order asked.
@Suite struct UserLoadingTests {
    @Test func idRangesNeedAscendingIdsFillingHalfTheRange() {
        #expect(UserLookup.denseRange(of: [7]) == 7...7)
        #expect(UserLookup.denseRange(of: [1, 2, 3, 4]) == 1...4)
        #expect(UserLookup.denseRange(of: [1, 3, 5, 7]) == 1...7)  // 4 of 7
        #expect(UserLookup.denseRange(of: [1, 4, 7, 10]) == nil)  // 4 of 10
        #expect(UserLookup.denseRange(of: [1, 2, 2, 3]) == nil)  // a repeat
        #expect(UserLookup.denseRange(of: [3, 2, 1]) == nil)  // --user order
        #expect(UserLookup.denseRange(of: []) == nil)
        #expect(UserLookup.denseRange(of: [Int64.min, Int64.max]) == nil)
        #expect(UserLookup.denseRange(of: [Int64.max - 1, Int64.max]) == (Int64.max - 1)...Int64.max)
    }

    /// Everything loaded, the stored plan as its text.
    static func summary(_ user: LoadedUser) -> String {
        var user = user
        let plan = user.currentPlanJSON.map { String(decoding: $0, as: UTF8.self) } ?? "-"
        user.currentPlanJSON = nil
        return "\(user) plan \(plan)"
    }

    /// Users with settings and state (plans of two days, a phase switch among them), with
    /// state but no settings row any more, with settings but no state (rejected rows), and
    /// with neither: read as ranges (ascending, with and without gaps) and by probes (the
    /// same ids), the users are the same.
    @Test func rangesAndProbesReadTheSameUsers() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { driver in
            try WorkerTests.insertUsers(into: driver, before: t0)
            try driver.run(at: t0)
            try driver.run(at: t0.adding(seconds: 14 * 86_400))
            try driver.connection.executeScript("DELETE FROM user_settings WHERE user_id % 11 = 0", purpose: "test: settings rows gone")
            let store = PlanStore(connection: driver.connection)

            for ids in [Array(Int64(1)...260), Array(stride(from: Int64(2), through: 220, by: 2)), [Int64(33)], [Int64(250)]] {
                #expect(UserLookup.denseRange(of: ids) != nil)
                let ranged = try store.loadUsers(ids)
                let probed = try store.loadUsers(ids, lookup: .probes)
                #expect(ranged.map(\.userID) == ids)
                #expect(probed.map(\.userID) == ids)
                for (byRange, byProbe) in zip(ranged, probed) where Self.summary(byRange) != Self.summary(byProbe) {
                    Issue.record("user \(byRange.userID): by range \(Self.summary(byRange)), by probe \(Self.summary(byProbe))")
                    break
                }
            }
            // The data had every kind of user.
            let all = try store.loadUsers(Array(Int64(1)...260))
            #expect(all.contains { $0.row != nil && $0.state?.currentPlan != nil && $0.currentPlanJSON != nil })
            #expect(all.contains { $0.row == nil && $0.state != nil })
            #expect(all.contains { $0.row != nil && $0.state?.currentPlan == nil })
            #expect(all.contains { $0.row == nil && $0.state == nil })
        }
    }
}

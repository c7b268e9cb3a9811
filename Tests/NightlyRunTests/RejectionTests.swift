import PlanRules
import Testing

/// Invalid rows are recorded once per row version; incomplete profiles are counted, not
/// rejected (plan-rules.md sections 1.1 and 1.2).
@Suite struct RejectionTests {
    @Test func aRejectedVersionIsRecordedOnceAndANewVersionIsJudgedAgain() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 41, heightCm: "320", mealsPerDay: 0, updatedAt: t0.adding(seconds: -60)))
            try driver.insert(TestUser(userID: 42, updatedAt: t0.adding(seconds: -60)))

            let first = try driver.run(at: t0)
            #expect(first.counts.rejected == 1 && first.counts.created == 1)
            let second = try driver.run(at: t0.adding(minutes: 15))
            let nextDay = try driver.run(at: t0.adding(seconds: 86_400))
            #expect(second.counts.rejected == 0 && nextDay.counts.rejected == 0)
            var rejections = try driver.rejections(of: 41)
            #expect(rejections.map(\.field) == ["height_cm", "meals_per_day"])
            #expect(rejections.map(\.message) == ["Height must be less than 300 cm (9'10\")",
                                                  "At least 1 meal per day required"])
            #expect(Set(rejections.map(\.runID)) == [try #require(first.runID)])
            #expect(try driver.history(of: 41).isEmpty)

            // The app writes again, still invalid: the new version is judged and recorded.
            let rewrite = t0.adding(seconds: 86_400 + 600)
            try driver.update(41, column: "meals_per_day", to: "3", cast: "integer", at: rewrite)
            let third = try driver.run(at: rewrite.adding(minutes: 15))
            #expect(third.counts.rejected == 1)
            rejections = try driver.rejections(of: 41)
            #expect(rejections.map(\.field) == ["height_cm", "meals_per_day", "height_cm"])
            #expect(rejections.last?.runID == third.runID)

            // Fixed: the first plan is made at once.
            try driver.update(41, column: "height_cm", to: "182.5", cast: "numeric", at: rewrite.adding(minutes: 20))
            let fixed = try driver.run(at: rewrite.adding(minutes: 30))
            #expect(fixed.counts.created == 1 && fixed.counts.rejected == 0)
            #expect(try driver.history(of: 41).first?.reasons == ["created"])
            #expect(try driver.rejections(of: 41).count == 3)
        }
    }

    /// A user with a plan writes an invalid row: rejected once at the midnight it would
    /// take effect, the plan stays, later runs record nothing more.
    @Test func anInvalidChangeKeepsThePlanAndIsRecordedOnceAtItsMidnight() throws {
        try RunDriver.withFresh { driver in
            let zone = "Pacific/Pago_Pago"
            let t0 = try #require(Instant(rfc3339: "2026-04-10T22:00:00Z"))  // 11:00 local
            try driver.insert(TestUser(userID: 43, timezone: zone, updatedAt: t0.adding(seconds: -60)))
            try driver.run(at: t0)
            try driver.update(43, column: "gender", to: "robot", at: t0.adding(minutes: 30))
            let today = try LocalTime.date(at: t0, in: zone)
            let midnight = try LocalTime.midnight(of: today.adding(days: 1), in: zone)

            let before = try driver.run(at: midnight.adding(minutes: -15))
            #expect(before.counts.rejected == 0)
            let atMidnight = try driver.run(at: midnight)
            #expect(atMidnight.counts.rejected == 1 && atMidnight.counts.changed == 0)
            try driver.run(at: midnight.adding(minutes: 15))
            try driver.run(at: midnight.adding(seconds: 86_400))
            #expect(try driver.rejections(of: 43).map(\.field) == ["gender"])
            #expect(try driver.rejections(of: 43).first?.message == "Please select your gender")
            #expect(try driver.history(of: 43).count == 1)
        }
    }

    @Test func anIncompleteProfileIsCountedOnceAndNotRejected() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 51, onboardingCompleted: false, updatedAt: t0.adding(seconds: -60)))
            try driver.insert(TestUser(userID: 52, heightCm: "0", updatedAt: t0.adding(seconds: -60)))

            let first = try driver.run(at: t0)
            #expect(first.counts.skippedIncomplete == 2)
            #expect(first.counts.rejected == 0 && first.counts.created == 0)
            let second = try driver.run(at: t0.adding(minutes: 15))
            #expect(second.counts.skippedIncomplete == 0)
            #expect(try driver.rejections(of: 51).isEmpty && driver.rejections(of: 52).isEmpty)
            #expect(try driver.history().isEmpty)

            // Onboarding completed: the first plan at once.
            try driver.update(51, column: "onboarding_completed", to: "true", cast: "boolean", at: t0.adding(minutes: 20))
            let completed = try driver.run(at: t0.adding(minutes: 30))
            #expect(completed.counts.created == 1 && completed.counts.skippedIncomplete == 0)
        }
    }
}

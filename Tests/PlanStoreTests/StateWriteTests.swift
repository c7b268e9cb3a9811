import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// How a large batch (the COPY path) writes `plan_state`: new users' rows are copied in,
/// known users' rows updated in place, and a known user whose row has gone is written
/// again rather than lost.
@Suite struct StateWriteTests {
    /// More rows than `PlanStore.pipelinedWriteRowLimit`, so the batch takes the COPY path.
    static let users: [Int64] = Array(1...100)

    /// Every state's `seen_updated_at`, to the microsecond.
    static let seenUpdatedAt = Instant(rfc3339: "2026-03-01T08:15:30.123456Z")!

    static func batch(evaluatedOn day: LocalDate, nextCheckAt: Instant, isNew: Bool) -> BatchWrite {
        var batch = BatchWrite()
        for userID in users {
            var state = UserPlanState()
            state.lastEvaluatedDate = day
            state.seenUpdatedAt = seenUpdatedAt
            batch.states.append(StateWrite(userID: userID, state: state, rulesVersion: "2026.1",
                                           nextCheckAt: nextCheckAt.adding(seconds: userID), isNew: isNew))
        }
        return batch
    }

    /// `user_id`, `last_evaluated_date`, `next_check_at` (epoch seconds), `updated_by_run` and
    /// `seen_updated_at` (epoch microseconds) of every row.
    static func rows(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT user_id || ' ' || last_evaluated_date || ' ' || (extract(epoch FROM next_check_at))::bigint
                   || ' ' || updated_by_run || ' ' || (extract(epoch FROM seen_updated_at) * 1000000)::bigint
            FROM plan_state ORDER BY user_id
            """, purpose: "test: reading plan_state").map { try $0.string(0) }
    }

    static func expected(day: String, nextCheckAt: Instant, run: Int) -> [String] {
        users.map {
            "\($0) \(day) \(nextCheckAt.adding(seconds: $0).microsecondsSinceEpoch / 1_000_000) \(run) "
                + "\(seenUpdatedAt.microsecondsSinceEpoch)"
        }
    }

    @Test func knownUsersAreUpdatedAndAVanishedRowIsWrittenAgain() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            let store = PlanStore(connection: connection)
            let generatedAt = Instant(rfc3339: "2026-03-02T00:00:00Z")!
            let first = Instant(rfc3339: "2026-03-03T00:00:00Z")!
            let second = Instant(rfc3339: "2026-03-04T00:00:00Z")!
            let third = Instant(rfc3339: "2026-03-05T00:00:00Z")!
            func write(_ batch: BatchWrite, run: Int64) throws {
                _ = try connection.withTransaction { _ in try store.write(batch, runID: run, generatedAt: generatedAt) }
            }

            try write(Self.batch(evaluatedOn: LocalDate(year: 2026, month: 3, day: 2), nextCheckAt: first,
                                 isNew: true), run: 1)
            #expect(try Self.rows(connection) == Self.expected(day: "2026-03-02", nextCheckAt: first, run: 1))

            // Every row known: updated in place.
            try write(Self.batch(evaluatedOn: LocalDate(year: 2026, month: 3, day: 3), nextCheckAt: second,
                                 isNew: false), run: 2)
            #expect(try Self.rows(connection) == Self.expected(day: "2026-03-03", nextCheckAt: second, run: 2))

            // A row deleted behind the job's back between its load and its write.
            #expect(try connection.execute("DELETE FROM plan_state WHERE user_id = 42", purpose: "test: losing a row") == 1)
            try write(Self.batch(evaluatedOn: LocalDate(year: 2026, month: 3, day: 4), nextCheckAt: third,
                                 isNew: false), run: 3)
            #expect(try Self.rows(connection) == Self.expected(day: "2026-03-04", nextCheckAt: third, run: 3))
        }
    }

    /// Dates and instants travel to `plan_state` as days and microseconds since the epoch
    /// (`timestamptz(microseconds:)`): every value comes back exactly, on both write paths
    /// (a small batch's upsert, a large batch's update in place) — the infinities, instants
    /// before 1970 with a fraction, the first and last microsecond of years 1 and 9999, and
    /// nil — whatever the session's time zone.
    @Test func extremeDatesAndInstantsComeBackExactly() throws {
        let instants: [Instant?] = [
            .distantPast, .distantFuture, nil,
            Instant(rfc3339: "1969-12-31T23:59:59.999999Z")!, Instant(rfc3339: "1900-02-28T12:00:00.000001Z")!,
            Instant(rfc3339: "0001-01-01T00:00:00.000000Z")!, Instant(rfc3339: "9999-12-31T23:59:59.999999Z")!,
            Instant(rfc3339: "2026-11-22T04:59:59.123456Z")!,
        ]
        let dates: [LocalDate?] = [nil, LocalDate(year: 1, month: 1, day: 1), LocalDate(year: 1969, month: 12, day: 31),
                                   LocalDate(year: 9999, month: 12, day: 31), LocalDate(year: 2026, month: 11, day: 22)]
        func batch(_ users: [Int64], isNew: Bool, shift: Int) -> BatchWrite {
            var batch = BatchWrite()
            for userID in users {
                let i = Int(userID) + shift
                var state = UserPlanState()
                state.lastEvaluatedDate = dates[i % dates.count]
                state.seenUpdatedAt = instants[i % instants.count]
                state.judgedUpdatedAt = instants[(i + 1) % instants.count]
                state.scheduledUpdatedAt = instants[(i + 2) % instants.count]
                batch.states.append(StateWrite(userID: userID, state: state, rulesVersion: "2026.1",
                                               nextCheckAt: instants[(i + 3) % instants.count], isNew: isNew))
            }
            return batch
        }
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            try connection.execute("SET TimeZone = 'Pacific/Chatham'", purpose: "test: an unusual session time zone")
            let store = PlanStore(connection: connection)
            let generatedAt = Instant(rfc3339: "2026-03-02T00:00:00Z")!
            // 12 rows take the pipelined upsert, 150 (more than `pipelinedWriteRowLimit`) the COPY path.
            for users in [Array(Int64(1)...12), Array(Int64(101)...250)] {
                for (isNew, shift) in [(true, 0), (false, 3)] {
                    let written = batch(users, isNew: isNew, shift: shift)
                    _ = try connection.withTransaction { _ in try store.write(written, runID: 1, generatedAt: generatedAt) }
                    let read = try store.loadUsers(users)
                    for (state, loaded) in zip(written.states, read) {
                        #expect(loaded.state?.lastEvaluatedDate == state.lastEvaluatedDate, "user \(state.userID)")
                        #expect(loaded.state?.seenUpdatedAt == state.seenUpdatedAt, "user \(state.userID)")
                        #expect(loaded.state?.judgedUpdatedAt == state.judgedUpdatedAt, "user \(state.userID)")
                        #expect(loaded.state?.scheduledUpdatedAt == state.scheduledUpdatedAt, "user \(state.userID)")
                        #expect(loaded.storedNextCheck == state.nextCheckAt, "user \(state.userID)")
                    }
                }
            }
        }
    }
}

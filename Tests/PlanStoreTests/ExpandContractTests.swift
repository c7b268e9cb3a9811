import Foundation
import PlanStore
import Postgres
import TestSupport
import Testing

/// Expand and contract migrations (docs/upgrading.md): what a binary accepts of a schema
/// ahead of it, what `migrate` applies and what waits for `migrate --contract`.
@Suite struct ExpandContractTests {
    /// What a next release might bring, as its `migrate` would record it.
    static let nextExpand = Migration(name: "9001_next_release_expand", file: """
        -- migration: expand
        CREATE TABLE plan_next_release (user_id bigint PRIMARY KEY);
        ALTER TABLE plan_runs ADD COLUMN next_release_note text;

        """)
    static let nextContract = Migration(name: "9002_next_release_contract", file: """
        -- migration: contract
        ALTER TABLE plan_runs RENAME COLUMN tzdata_version TO tz_version;

        """)

    @Test func everyMigrationSaysWhetherThePreviousReleaseRunsAfterIt() {
        for migration in Migration.planRegen {
            #expect(migration.kind != nil, """
                \(migration.name) has no '-- migration: expand' or '-- migration: contract' first line \
                (docs/upgrading.md says which): add it and run sql/embed.sh
                """)
        }
    }

    /// The marks came after these migrations were applied: the header is not part of the
    /// checksum, so no database sees them as edited. (The checksums as recorded before.)
    @Test func markingAMigrationLeavesItsChecksumAsApplied() {
        let recorded = [
            "0001_plan_tables": "adbdc0d47a696a5d", "0002_analyst_views": "4035dcbc49d63554",
            "0003_job_role": "957c48b29cfc6fd1", "0004_notification_batches": "1c7e720f529e8f07",
            "0005_plan_state_without_snapshot": "b7b83631fc312e42", "0006_partition_plan_history": "54211237991d4420",
            "0007_lighter_write_indexes": "5518c22185eb05ec", "0008_partition_claims": "426b636cbdb229c6",
            "0009_scheduled_row_version": "b8596915c1226613", "0010_history_json_lz4": "f392ea04a0abf46e",
            "0011_late_row_sweep": "f8846b7d71e8489a",
        ]
        for migration in Migration.planRegen {
            if let checksum = recorded[migration.name] {
                #expect(migration.checksum == checksum, "\(migration.name)")
            }
        }
    }

    @Test func theHeaderLinesAreReadAndLeftOutOfTheSQL() {
        let migration = Migration(name: "9003_x", file: "-- migration: contract\n-- migration-lock: rewrites t \n-- t\nDROP TABLE t;\n")
        #expect(migration.kind == .contract)
        #expect(migration.longLock == "rewrites t")
        #expect(migration.sql == "-- t\nDROP TABLE t;\n")
        #expect(Migration(name: "9004_x", file: "-- migration: expnad\nSELECT 1;\n").kind == nil)
        #expect(!Migration(name: "9004_x", file: "SELECT 1;\n").isExpand)
    }

    @Test func aBinaryRunsOnASchemaAheadOfItOnlyWhileEveryUnknownMigrationIsAnExpandOne() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            try migrator.apply(Migration.planRegen)
            // The next release's migrate (it knows one more migration, an expand one).
            #expect(try migrator.apply(Migration.planRegen + [Self.nextExpand]) == [Self.nextExpand.name])
            let kind = try connection.query(
                "SELECT kind FROM plan_regen_migrations WHERE name = \(bind: Self.nextExpand.name)",
                purpose: "test: reading the recorded kind").singleRow().string("kind")
            #expect(kind == "expand")
            try migrator.checkUpToDate()

            // Then its contract step; and a migration recorded without a kind (by hand).
            try migrator.apply(Migration.planRegen + [Self.nextExpand, Self.nextContract],
                               contract: .apply(unlessOlderBinariesRanWithin: .zero))
            try connection.execute(
                "INSERT INTO plan_regen_migrations (name, checksum) VALUES ('9999_without_a_kind', '0')",
                purpose: "test: a migration recorded without a kind")
            #expect {
                try migrator.checkUpToDate()
            } throws: { error in
                guard case StoreError.schemaAhead(let unknown, let level) = error else { return false }
                return unknown == [Self.nextContract.name, "9999_without_a_kind"] && level == Migration.planRegen.last?.name
                    && "\(error)".contains("deploy the newer plan-regen")
            }
        }
    }

    /// Plain `migrate` leaves a contract migration (and all after it) for `migrate
    /// --contract`; the binary that brings it runs meanwhile. `--contract` refuses while a
    /// binary that does not know it has run within the window.
    @Test func aContractMigrationWaitsUntilNoOlderBinaryHasRunWithinTheWindow() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            try migrator.apply(Migration.planRegen)
            let next = Migration.planRegen + [Self.nextContract, Self.nextExpand]
            #expect(try migrator.apply(next).isEmpty)
            let status = try migrator.status(of: next, contract: false)
            #expect(status.entries.suffix(2).map(\.state) == [.waitsForContract, .waitsForContract])
            #expect(status.toApply.isEmpty)
            try migrator.checkUpToDate(Migration.planRegen + [Self.nextContract])  // the next release runs
            #expect(try migrator.status(of: next, contract: true).toApply == [Self.nextContract, Self.nextExpand])

            // A run of this binary (it does not know the contract migration), 2 hours ago.
            try connection.execute(
                """
                INSERT INTO plan_runs (started_at, as_of, binary_version, rules_version, tzdata_version, schema_level)
                VALUES (now() - interval '2 hours', now(), '1.0.0', '2026.1', 'x', \(bind: Migration.planRegen.last?.name))
                """, purpose: "test: a recent run of an older binary")
            #expect {
                try migrator.apply(next, contract: .apply(unlessOlderBinariesRanWithin: .seconds(24 * 3600)))
            } throws: { error in
                guard case StoreError.contractWaitsForOlderBinaries(let migration, _, let version, _, _, _) = error
                else { return false }
                return migration == Self.nextContract.name && version == "1.0.0"
                    && "\(error)".contains("within the last 24 h")
                    && "\(error)".contains("run `plan-regen migrate --contract` again")
            }
            // Outside a 1-hour window the run does not count.
            #expect(try migrator.apply(next, contract: .apply(unlessOlderBinariesRanWithin: .seconds(3600)))
                    == [Self.nextContract.name, Self.nextExpand.name])
        }
    }

    @Test func aRunOfABinaryFromBeforeSchemaLevelsCountsAsNotKnowingAContractMigration() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            try migrator.apply(Migration.planRegen)
            try connection.execute(
                "INSERT INTO plan_runs (as_of, binary_version, rules_version, tzdata_version) VALUES (now(), '0.1.0', '2026.1', 'x')",
                purpose: "test: a run that recorded no schema level")
            #expect(throws: StoreError.self) {
                try migrator.apply(Migration.planRegen + [Self.nextContract],
                                   contract: .apply(unlessOlderBinariesRanWithin: .seconds(3600)))
            }
        }
    }

    /// An analyst's open transaction has read plan_runs (and holds its ACCESS SHARE lock
    /// until it ends); the migration needs ACCESS EXCLUSIVE. Each attempt waits 0.2 s for
    /// it, gives way, and is rolled back whole; with the lock never released, the last of 3
    /// attempts ends `migrate` with a retryable error, and nothing of the migration is left.
    @Test func aMigrationThatNeverGetsItsLockGivesUpCleanly() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            var migrator = Migrator(connection: connection)
            try migrator.apply(Migration.planRegen)
            let analyst = try database.connect()
            try analyst.execute("BEGIN", purpose: "test: the analyst's transaction")
            _ = try analyst.query("SELECT count(*) FROM plan_runs", purpose: "test: the analyst's long query")

            migrator.statementLockWait = .milliseconds(200)
            migrator.attempts = 3
            migrator.firstPause = .milliseconds(100)
            let retries = Counter()
            migrator.onRetry = { _, _, _ in retries.increment() }
            #expect {
                try migrator.apply(Migration.planRegen + [Self.nextExpand])
            } throws: { error in
                guard case StoreError.migrationLockNotGranted(let name, let attempts, _) = error else { return false }
                return name == Self.nextExpand.name && attempts == 3 && "\(error)".contains("run `plan-regen migrate` again")
            }
            #expect(retries.value == 2)
            try analyst.execute("COMMIT", purpose: "test: the analyst is done")
            // The table the migration creates before the statement that waited is gone too.
            let left = try connection.query(
                """
                SELECT (SELECT count(*) FROM pg_tables WHERE tablename = 'plan_next_release') AS tables,
                       (SELECT count(*) FROM plan_regen_migrations WHERE name = \(bind: Self.nextExpand.name)) AS records
                """, purpose: "test: what is left of the migration").singleRow()
            #expect(try left.int("tables") == 0)
            #expect(try left.int("records") == 0)
            // Once the lock is gone, it applies.
            #expect(try migrator.apply(Migration.planRegen + [Self.nextExpand]) == [Self.nextExpand.name])
        }
    }

    /// One migration behind: `--status` lists it as to apply, the rest as applied, and says
    /// which binaries run on the result; `--dry-run`'s list is the same one.
    @Test func theStatusOfADatabaseOneMigrationBehind() throws {
        try TestDatabase.withFresh { database in
            let migrator = Migrator(connection: try database.connect())
            try migrator.apply(Array(Migration.planRegen.dropLast()))
            let status = try migrator.status(of: Migration.planRegen, contract: false)
            let newest = try #require(Migration.planRegen.last)
            #expect(status.toApply == [newest])
            #expect(status.entries.last?.state == .toApply)
            #expect(status.entries.dropLast().allSatisfy { if case .applied = $0.state { true } else { false } })
            // The newest contract migration among 0001-0013 is 0007.
            #expect(status.oldestLevelThatRuns == Migration.planRegen.last { $0.kind != .expand }?.name)
        }
    }
}

/// A count shared with a callback.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

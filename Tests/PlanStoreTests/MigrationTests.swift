import Foundation
import PlanStore
import Postgres
import TestSupport
import Testing

@Suite struct MigrationTests {
    /// The .sql files are the source of truth; the binary carries copies.
    @Test func embeddedMigrationsMatchTheSQLFiles() throws {
        let sqlDirectory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("sql")
        func files(in directory: URL, prefix: String) throws -> [Migration] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".sql") && $0.first?.isNumber == true }
                .sorted()
                .map { file in
                    Migration(name: prefix + String(file.dropLast(4)),
                              file: try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
                }
        }
        let onDisk = try files(in: sqlDirectory, prefix: "")
        let reference = try files(in: sqlDirectory.appendingPathComponent("reference"), prefix: "reference/")
        #expect(!onDisk.isEmpty)
        func summary(_ migrations: [Migration]) -> [String] {
            migrations.map { "\($0.name) \($0.checksum) \($0.kind?.rawValue ?? "-") \($0.longLock ?? "-")" }
        }
        #expect(summary(Migration.planRegen) == summary(onDisk), "sql/ changed: run sql/embed.sh")
        #expect(summary(Migration.reference) == summary(reference), "sql/reference changed: run sql/embed.sh")
    }

    @Test func migratingTwiceAppliesEachMigrationOnce() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            let first = try migrator.apply(Migration.reference + Migration.planRegen)
            #expect(first == (Migration.reference + Migration.planRegen).map(\.name))
            let second = try migrator.apply(Migration.reference + Migration.planRegen)
            #expect(second.isEmpty)
            try migrator.checkUpToDate()
            let tables = try connection.query(
                """
                SELECT count(*) FROM information_schema.tables WHERE table_name = ANY(\([
                    "user_settings", "plan_state", "plan_history", "notification_outbox", "plan_runs",
                    "plan_rejections", "plan_watermarks"])::text[])
                """,
                purpose: "counting tables")
            #expect(try tables.singleRow().int(0) == 7)
        }
    }

    /// sql/0008 (applied, so never edited) spells the partition count itself: one claim row
    /// per partition 0…63 and a CHECK refusing others. They must agree with the Swift count
    /// that every query's partition expression is built from.
    @Test func thePartitionClaimRowsAgreeWithUserPartitionsCount() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            let claims = try connection.query(
                "SELECT count(*) AS n, min(partition) AS first, max(partition) AS last FROM plan_partition_claims",
                purpose: "reading the claim rows").singleRow()
            #expect(try claims.int("n") == UserPartitions.count)
            #expect(try claims.int("first") == 0)
            #expect(try claims.int("last") == UserPartitions.count - 1)
            for outside in [-1, UserPartitions.count] {
                let error = try #require(throws: PostgresError.self) {
                    try connection.execute(
                        "INSERT INTO plan_partition_claims (partition) VALUES (\(outside))", purpose: "adding a claim row")
                }
                #expect(error.sqlState == "23514", "\(error)")  // check_violation
            }
        }
    }

    @Test func concurrentMigrationsFromTwoSessionsBothSucceed() throws {
        try TestDatabase.withFresh { database in
            let conninfo = database.conninfo
            let results = ConcurrentResults()
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    do {
                        let connection = try PostgresConnection(conninfo: conninfo)
                        results.append(.success(try Migrator(connection: connection).apply(Migration.planRegen)))
                    } catch {
                        results.append(.failure(error))
                    }
                }
            }
            group.wait()
            let applied = try results.values.map { try $0.get() }
            // Each migration was applied once, by one session or the other (each takes the
            // migration lock per migration); neither failed.
            #expect(applied.flatMap { $0 }.sorted() == Migration.planRegen.map(\.name).sorted())
            let count = try database.connect().query(
                "SELECT count(*) FROM plan_regen_migrations", purpose: "counting migrations")
            #expect(try count.singleRow().int(0) == Migration.planRegen.count)
        }
    }

    @Test func aDatabaseBehindTheBinaryIsRefused() throws {
        try TestDatabase.withFresh { database in
            let migrator = Migrator(connection: try database.connect())
            #expect {
                try migrator.checkUpToDate()
            } throws: { error in
                guard case StoreError.schemaBehind(let pending) = error else { return false }
                return pending == Migration.planRegen.map(\.name)
                    && "\(error)".contains("run `plan-regen migrate`")
            }
        }
    }

    @Test func anEditedMigrationIsRefused() throws {
        try TestDatabase.withFresh { database in
            let migrator = Migrator(connection: try database.connect())
            try migrator.apply(Migration.planRegen)
            var edited = Migration.planRegen
            edited[0] = Migration(name: edited[0].name, sql: edited[0].sql + "\n-- edited")
            #expect {
                try migrator.apply(edited)
            } throws: { error in
                guard case StoreError.migrationEdited(let name) = error else { return false }
                return name == Migration.planRegen[0].name
            }
        }
    }
}

/// Collects results from threads.
final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Result<[String], Error>] = []

    func append(_ result: Result<[String], Error>) {
        lock.lock()
        storage.append(result)
        lock.unlock()
    }

    var values: [Result<[String], Error>] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

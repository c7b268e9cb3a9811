/// Where the database stands against this binary's migrations: what `migrate --status`
/// prints and what `migrate --dry-run` would apply. Reads only.
public struct MigrationStatus: Sendable {
    public enum State: Sendable, Hashable {
        /// Applied, at this instant (UTC).
        case applied(at: String)
        /// `migrate` (or `migrate --contract`, as asked) applies it now.
        case toApply
        /// A contract migration, or one after it: waits for `migrate --contract`.
        case waitsForContract
        /// Applied by a binary that knows more migrations than this one.
        case unknown(at: String)
    }

    public struct Entry: Sendable {
        public var name: String
        /// nil: unmarked (counts as contract).
        public var kind: Migration.Kind?
        /// Why it holds a long lock on a large table (pending migrations of this binary).
        public var longLock: String?
        public var state: State
    }

    /// Every migration this binary knows and every one it does not, in order.
    public var entries: [Entry]
    /// What `migrate` would apply, in order.
    public var toApply: [Migration]
    /// The oldest schema level (a migration's name, as `plan-regen --version` prints it) of
    /// a binary that can run on the database once `toApply` is applied: the newest contract
    /// migration then applied; nil when there is none (every binary from 1.0.0 on).
    public var oldestLevelThatRuns: String?
}

extension Migrator {
    /// The status of `migrations` in the database, for a `migrate` with `contract` or without.
    public func status(of migrations: [Migration], contract: Bool) throws -> MigrationStatus {
        let applied = try appliedMigrations()
        try Self.checkNoneEdited(migrations, applied: applied)
        let (toApply, waiting) = Self.schedule(migrations, applied: applied, fresh: Self.isFresh(applied),
                                               contract: contract)
        let known = Set(migrations.map(\.name))
        var entries: [MigrationStatus.Entry] = []
        for migration in migrations {
            let state: MigrationStatus.State
            if let record = applied[migration.name] {
                state = .applied(at: record.appliedAt)
            } else {
                state = waiting.contains(migration) ? .waitsForContract : .toApply
            }
            entries.append(.init(name: migration.name, kind: migration.kind,
                                 longLock: applied[migration.name] == nil ? migration.longLock : nil, state: state))
        }
        for record in applied.values where !known.contains(record.name) && !record.name.hasPrefix("reference/") {
            entries.append(.init(name: record.name, kind: record.kind, longLock: nil, state: .unknown(at: record.appliedAt)))
        }
        entries.sort { ($0.name.hasPrefix("reference/") ? 0 : 1, $0.name) < ($1.name.hasPrefix("reference/") ? 0 : 1, $1.name) }
        let willBeApplied = entries.filter {
            if case .waitsForContract = $0.state { return false }
            return !$0.name.hasPrefix("reference/")
        }
        return MigrationStatus(entries: entries, toApply: toApply,
                               oldestLevelThatRuns: willBeApplied.last { $0.kind != .expand }?.name)
    }
}

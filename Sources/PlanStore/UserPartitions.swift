import Postgres

/// Users are split into 64 fixed partitions by `user_id mod 64`. A run owns the
/// partitions it holds an advisory lock for, so two runs (or two shards, or a manual
/// rerun during a scheduled run) never process the same user at the same time.
public enum UserPartitions {
    public static let count = 64

    /// The partition of a user, the same in Swift and in SQL (`partitionSQL`).
    public static func partition(of userID: Int64) -> Int {
        Int(((userID % Int64(count)) + Int64(count)) % Int64(count))
    }

    /// SQL expression for the partition of the `user_id` column `column` (a literal name).
    static func sql(_ column: String) -> String {
        "((\(column) % 64 + 64) % 64)::int"
    }

    /// The partitions of shard `index` of `shardCount` (`--shard index/shardCount`).
    public static func forShard(index: Int, of shardCount: Int) -> [Int] {
        (0..<count).filter { $0 % shardCount == index }
    }
}

extension PlanStore {
    static let partitionLockNamespace: Int32 = 0x706C_616E  // "plan"

    /// Takes the advisory lock of every partition in `partitions` that is free and
    /// returns those taken. Session locks: they last until `unlockPartitions` or the
    /// connection ends (a killed run frees them at once).
    public func tryLockPartitions(_ partitions: [Int]) throws -> [Int] {
        let result = try connection.query(
            """
            SELECT p FROM unnest($1::int[]) AS p
            WHERE pg_try_advisory_lock($2, p + 100)
            """,
            [partitions.map { String($0) }, Self.partitionLockNamespace],
            purpose: "locking user partitions")
        return try result.map { try $0.int(0) }.sorted()
    }

    /// Waits (up to lock_timeout) for the locks of `partitions`: used by a manual rerun,
    /// which should not be skipped because a scheduled run is busy.
    public func lockPartitions(_ partitions: [Int]) throws {
        try connection.execute(
            "SELECT pg_advisory_lock($1, p + 100) FROM unnest($2::int[]) AS p",
            [Self.partitionLockNamespace, partitions.map { String($0) }],
            purpose: "waiting for the locks of the requested users' partitions")
    }

    public func unlockPartitions(_ partitions: [Int]) throws {
        try connection.execute(
            "SELECT pg_advisory_unlock($1, p + 100) FROM unnest($2::int[]) AS p",
            [Self.partitionLockNamespace, partitions.map { String($0) }],
            purpose: "unlocking user partitions")
    }
}

import Postgres

/// Users are split into `count` fixed partitions by `user_id mod count`. A run works on the
/// partitions it has claimed (PartitionClaims.swift), so two runs (or two shards, or a
/// manual rerun during a scheduled run) never process the same user at the same time.
public enum UserPartitions {
    /// The SQL below is built from it; a test checks that sql/0008's claim rows agree.
    public static let count = 64

    /// The partition of a user, the same in Swift and in SQL (`sql(_:)`).
    public static func partition(of userID: Int64) -> Int {
        Int(((userID % Int64(count)) + Int64(count)) % Int64(count))
    }

    /// The distinct partitions of `userIDs`, ascending.
    public static func partitions(of userIDs: [Int64]) -> [Int] {
        var seen = [Bool](repeating: false, count: count)
        for userID in userIDs { seen[partition(of: userID)] = true }
        return seen.indices.filter { seen[$0] }
    }

    /// SQL expression for the partition of the `user_id` column `column`; the count is
    /// written into it, a constant of the program as before, not a parameter.
    static func sql(_ column: SQLQuery) -> SQLQuery {
        let count = String(count)
        return "((\(sql: column) % \(unescaped: count) + \(unescaped: count)) % \(unescaped: count))::int"
    }

    /// The partitions of shard `index` of `shardCount` (`--shard index/shardCount`).
    public static func forShard(index: Int, of shardCount: Int) -> [Int] {
        (0..<count).filter { $0 % shardCount == index }
    }
}

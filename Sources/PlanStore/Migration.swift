/// One versioned schema change: a file of `sql/`, embedded in the binary by `sql/embed.sh`.
public struct Migration: Sendable, Hashable {
    /// The file name without `.sql`, e.g. `0001_plan_tables` or `reference/0000_user_settings`.
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// FNV-1a 64 of the SQL text: detects a migration edited after it was applied.
    public var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// One versioned schema change: a file of `sql/`, embedded in the binary by `sql/embed.sh`.
///
/// A file starts with header lines that say what the change does to the binaries already
/// deployed (docs/upgrading.md):
///
///     -- migration: expand
///     -- migration-lock: rebuilds plan_state's primary key: writes to plan_state wait meanwhile
///
/// The header is not part of the SQL applied, nor of its checksum, so marking a migration
/// applied before the marks existed does not make it look edited.
public struct Migration: Sendable, Hashable {
    /// Whether the previous release's binary still runs correctly on the schema after it.
    public enum Kind: String, Sendable, Hashable {
        /// Yes: a new table, a nullable column, a new index, a view. `migrate` applies it,
        /// and a binary that does not know it still runs.
        case expand
        /// No: a drop, a rename, a new constraint on existing data, a changed meaning. It
        /// waits for `migrate --contract`, and a binary that does not know it refuses to run.
        case contract
    }

    /// The file name without `.sql`, e.g. `0001_plan_tables` or `reference/0000_user_settings`.
    public let name: String
    /// The SQL applied: the file without its header lines.
    public let sql: String
    /// From `-- migration: expand|contract`; nil when the file has no such line (a test
    /// fails; every decision counts it as contract).
    public let kind: Kind?
    /// From `-- migration-lock:`: why applying it holds a lock on a large table for long
    /// (`migrate --status` says so; docs/upgrading.md says how to run it in a quiet window).
    public let longLock: String?

    public init(name: String, sql: String, kind: Kind? = nil, longLock: String? = nil) {
        self.name = name
        self.sql = sql
        self.kind = kind
        self.longLock = longLock
    }

    /// A migration from its file's text: the header lines read and left out of `sql`.
    public init(name: String, file: String) {
        var kind: Kind?
        var longLock: String?
        var rest = Substring(file)
        while true {
            let line = rest.prefix { $0 != "\n" }
            if let value = Self.headerValue(line, key: "-- migration:") {
                kind = Kind(rawValue: value)
            } else if let value = Self.headerValue(line, key: "-- migration-lock:") {
                longLock = value
            } else {
                break
            }
            rest = rest.dropFirst(line.count + 1)
        }
        self.init(name: name, sql: String(rest), kind: kind, longLock: longLock)
    }

    private static func headerValue(_ line: Substring, key: String) -> String? {
        guard line.hasPrefix(key) else { return nil }
        var value = line.dropFirst(key.count).drop { $0 == " " }
        while value.last == " " || value.last == "\r" { value = value.dropLast() }
        return String(value)
    }

    /// Only an expand migration lets a binary that does not know it run; an unmarked one
    /// counts as contract.
    public var isExpand: Bool { kind == .expand }

    /// The number the name starts with (`0013`): the order of migrations and of schema levels.
    public static func number(of name: String) -> Int? {
        Int(name.prefix { $0.isNumber })
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


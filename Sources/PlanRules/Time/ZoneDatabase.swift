/// The tz database as the rules see it: which names are known zones (the `Z` and `L`
/// lines of `tzdata.zi`, plan-rules.md section 1) and the rules of each.
///
/// An immutable value that the caller loads once, before any user is evaluated
/// (`ZoneDatabase.loadSystem()` of the ZoneFiles module reads `/usr/share/zoneinfo`), so
/// the rules read no file and take no lock. A name is looked up, never turned into a
/// path, so a hostile `timezone` value (`../../etc/passwd`) is simply unknown.
public struct ZoneDatabase: Sendable {
    /// The tz database release, from `tzdata.zi`'s `# version` line (e.g. `2025b`).
    public let version: String
    /// When `tzdata.zi` was last modified, for the metrics' and `status`'s tz database age
    /// (nil when not known). Debian's package sets it to the package's release date; a
    /// database compiled by hand gets its install time.
    public let sourceModifiedAt: Instant?
    private let knownNames: Set<String>
    private let zones: [String: Zone]

    /// - Parameter knownNames: the known names, by default those of `zones`. A known name
    ///   without a zone (its file would not parse) passes validation but has no rules: the
    ///   plan date then falls back to another zone, as section 2 does for unknown names.
    public init(version: String, zones: [Zone], knownNames: Set<String>? = nil, sourceModifiedAt: Instant? = nil) {
        self.version = version
        self.sourceModifiedAt = sourceModifiedAt
        self.zones = Dictionary(zones.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.knownNames = knownNames ?? Set(self.zones.keys)
    }

    public func isKnown(_ name: String) -> Bool { knownNames.contains(name) }

    /// The zone, or nil when `name` is not a known zone (a validation error, never a crash).
    public func zone(named name: String) -> Zone? { zones[name] }
}

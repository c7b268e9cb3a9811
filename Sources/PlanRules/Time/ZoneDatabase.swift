import Foundation
import Synchronization

/// The system's time zone database: which names are known zones (the `Z` and `L` lines
/// of `/usr/share/zoneinfo/tzdata.zi`, plan-rules.md section 1) and their rules.
///
/// A zone's compiled file is read the first time its name is asked for, then kept: one
/// `Zone` per name, shared by every thread. Only names from the known set ever become
/// file paths, so a hostile `timezone` value (`../../etc/passwd`) opens nothing.
public final class ZoneDatabase: Sendable {
    /// The tz database release, from `tzdata.zi`'s `# version` line (e.g. `2025b`).
    public let version: String
    /// When `tzdata.zi` was last modified, for the metrics' and `status`'s tz database age
    /// (nil when not known). Debian's package sets it to the package's release date; a
    /// database compiled by hand gets its install time.
    public let sourceModifiedAt: Instant?
    private let knownNames: Set<String>
    /// Where the compiled TZif files live, one per known name.
    private let zoneDirectory: String
    private let loaded = Mutex<[String: Zone]>([:])

    /// A database of exactly `knownNames`, read from `zoneDirectory`. Unlike `loadSystem`,
    /// it does not check up front that each name has a file.
    public init(knownNames: Set<String>, version: String, zoneDirectory: String = "/usr/share/zoneinfo",
                sourceModifiedAt: Instant? = nil) {
        self.knownNames = knownNames
        self.version = version
        self.sourceModifiedAt = sourceModifiedAt
        self.zoneDirectory = zoneDirectory
    }

    /// Reads `tzdata.zi` (default `/usr/share/zoneinfo/tzdata.zi`); zone files are looked
    /// up in the same directory. Throws when the file cannot be read, or when a known name
    /// has no TZif file there: a broken installation must stop the run, not make valid
    /// zones look unknown.
    public static func loadSystem(path: String = "/usr/share/zoneinfo/tzdata.zi") throws -> ZoneDatabase {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ZoneDatabaseError(path: path, reason: "cannot read the tz database source: \(error)")
        }
        var names = Set<String>()
        var version = "unknown"
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# version ") { version = String(line.dropFirst(10)) }
            let parts = line.split(separator: " ")
            if parts.first == "Z", parts.count > 1 { names.insert(String(parts[1])) }
            if parts.first == "L", parts.count > 2 { names.insert(String(parts[2])) }
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        let database = ZoneDatabase(
            knownNames: names, version: version, zoneDirectory: directory,
            sourceModifiedAt: modified.map { Instant(secondsSinceEpoch: Int64($0.timeIntervalSince1970.rounded(.down))) })
        let missing = names.sorted().filter { !database.hasTZifFile($0) }
        guard missing.isEmpty else {
            throw ZoneDatabaseError(path: directory, reason: "no TZif file for known zones: "
                                    + missing.joined(separator: ", "))
        }
        return database
    }

    public func isKnown(_ name: String) -> Bool { knownNames.contains(name) }

    /// The zone, or nil when `name` is not a known zone (a validation error, never a crash).
    ///
    /// A known zone whose file turns out unreadable or corrupt after `loadSystem` checked
    /// it also gives nil; `loadZoneFile(_:)` says why.
    public func zone(named name: String) -> Zone? {
        if let zone = loaded.withLock({ $0[name] }) { return zone }
        guard isKnown(name), let zone = try? loadZoneFile(name) else { return nil }
        // Parsed outside the lock so other zones are not held up; the first one stored wins.
        return loaded.withLock { zones in
            if let earlier = zones[name] { return earlier }
            zones[name] = zone
            return zone
        }
    }

    /// Reads and parses the TZif file of a known zone.
    func loadZoneFile(_ name: String) throws -> Zone {
        let path = zoneDirectory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ZoneDatabaseError(path: path, reason: "cannot read the zone file")
        }
        do {
            return Zone(name: name, table: OffsetTable(try TZifFile(bytes: [UInt8](data))))
        } catch {
            throw ZoneDatabaseError(path: path, reason: error.description)
        }
    }

    /// Whether `name`'s file exists and starts with the TZif magic; reads 4 bytes.
    private func hasTZifFile(_ name: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: zoneDirectory + "/" + name) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic.elementsEqual("TZif".utf8)
    }
}

/// The tz database could not be used: which file, and why.
public struct ZoneDatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "\(path): \(reason)" }
}

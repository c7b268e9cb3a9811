import Foundation
import PlanRules

/// Reading the system's tz database for the rules, which read no file themselves.
extension ZoneDatabase {
    /// Reads `tzdata.zi` (default `/usr/share/zoneinfo/tzdata.zi`) and the TZif file of
    /// every name it knows, in the same directory, at once: about 600 files, ~10 ms and
    /// ~5 MB more at startup than reading the names alone, so nothing is read later.
    ///
    /// Throws when `tzdata.zi` cannot be read, or when a known name has no TZif file: a
    /// broken installation must stop the run, not make valid zones look unknown. A file
    /// that is there but does not parse leaves its name known, without a zone
    /// (`loadZoneFile(_:directory:)` says why).
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
        var zones: [Zone] = []
        var missing: [String] = []
        for name in names.sorted() {
            switch Result(catching: { try loadZoneFile(name, directory: directory) }) {
            case .success(let zone?): zones.append(zone)
            case .success(nil): missing.append(name)
            case .failure: break  // known, without a zone
            }
        }
        guard missing.isEmpty else {
            throw ZoneDatabaseError(path: directory, reason: "no TZif file for known zones: "
                                    + missing.joined(separator: ", "))
        }
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        return ZoneDatabase(
            version: version, zones: zones, knownNames: names,
            sourceModifiedAt: modified.map { Instant(secondsSinceEpoch: Int64($0.timeIntervalSince1970.rounded(.down))) })
    }

    /// Reads and parses the TZif file of one zone; nil when there is none (no readable
    /// file, or one that does not start with `TZif`).
    public static func loadZoneFile(_ name: String, directory: String) throws -> Zone? {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path), data.starts(with: "TZif".utf8) else { return nil }
        do {
            return try Zone(name: name, tzif: [UInt8](data))
        } catch {
            throw ZoneDatabaseError(path: path, reason: error.description)
        }
    }
}

/// The tz database could not be used: which file, and why.
public struct ZoneDatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "\(path): \(reason)" }
}

import Foundation
import PlanRules

/// Reading the system's tz database for the rules, which read no file themselves.
extension ZoneDatabase {
    /// Reads `tzdata.zi` (default `/usr/share/zoneinfo/tzdata.zi`) and the TZif file of
    /// every name it knows, in the same directory, at once: about 600 files, ~2.5 ms of
    /// CPU and ~5 MB at startup, so nothing is read later (60 M instructions, 200 M before
    /// the names were read as bytes and a year's rule changes made no array).
    ///
    /// Throws when `tzdata.zi` cannot be read, or when a known name has no TZif file: a
    /// broken installation must stop the run, not make valid zones look unknown. A file
    /// that is there but does not parse leaves its name known, without a zone
    /// (`loadZoneFile(_:directory:)` says why).
    public static func loadSystem(path: String = "/usr/share/zoneinfo/tzdata.zi") throws -> ZoneDatabase {
        let source: Data
        do {
            source = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ZoneDatabaseError(path: path, reason: "cannot read the tz database source: \(error)")
        }
        let (version, names) = knownNames(tzdataZi: source)
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

    /// The `# version` and the names of the `Z name …` and `L target name` lines of a
    /// `tzdata.zi`, read as bytes: splitting its 4,500 lines as a String, Character by
    /// Character, was half of a single-user rerun's CPU.
    static func knownNames(tzdataZi source: Data) -> (version: String, names: Set<String>) {
        var names = Set<String>()
        var version = "unknown"
        let versionPrefix = "# version ".utf8
        let bytes = [UInt8](source)
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            if line.starts(with: versionPrefix) {
                version = String(decoding: line.dropFirst(versionPrefix.count), as: UTF8.self)
                continue
            }
            // `Z name …` names its second field, `L target name` its third.
            guard let kind = field(0, of: line), kind.count == 1 else { continue }
            let wanted: Int
            switch kind.first {
            case UInt8(ascii: "Z"): wanted = 1
            case UInt8(ascii: "L"): wanted = 2
            default: continue
            }
            if let name = field(wanted, of: line) { names.insert(String(decoding: name, as: UTF8.self)) }
        }
        return (version, names)
    }

    /// Field `index` (0 = the first) of `line`, fields separated by runs of spaces; nil
    /// when the line has fewer fields.
    private static func field(_ index: Int, of line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var position = line.startIndex
        var current = -1
        while position < line.endIndex {
            while position < line.endIndex, line[position] == UInt8(ascii: " ") { position += 1 }
            guard position < line.endIndex else { return nil }
            let end = line[position...].firstIndex(of: UInt8(ascii: " ")) ?? line.endIndex
            current += 1
            if current == index { return line[position..<end] }
            position = end
        }
        return nil
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

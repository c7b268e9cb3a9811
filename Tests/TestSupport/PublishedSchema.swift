import Foundation
import Postgres

/// The published JSON Schemas (`docs/schemas/*.schema.json`), checked with an independent
/// validator: Python's `jsonschema` (Debian's python3-jsonschema, which `deploy/test.sh`
/// installs) through `deploy/validate-json.py`, so a schema and the Swift encoders cannot
/// agree by sharing a bug.
///
/// ```swift
/// if let check = try PublishedSchema.notificationLine.validate(lines, what: "the reference run's lines") {
///     #expect(check.isValid, "\(check.report)")
/// }
/// ```
public enum PublishedSchema: String, CaseIterable, Sendable {
    case notificationLine = "notification-line"
    case snapshot
    case diff

    /// The repository's root, found from this file's place in it.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let validatorScript = repository.appendingPathComponent("deploy/validate-json.py").path

    public var path: String { Self.repository.appendingPathComponent("docs/schemas/\(rawValue).schema.json").path }

    /// Validates each line (one JSON document) against this schema. Returns nil, without
    /// validating, when python3-jsonschema is missing outside CI; under `CI=true` a missing
    /// validator throws instead, so CI never passes without the check.
    public func validate(_ lines: [String], what: String) throws -> SchemaCheck? {
        guard try Self.validatorIsAvailable() else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("schema-check-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let (status, output, errors) = try Self.python([Self.validatorScript, path, file.path])
        return SchemaCheck(schema: self, what: what, lines: lines.count, status: status,
                           output: output, report: errors)
    }

    /// Validates the value of `field` in each line of `file` (lines where it is null or
    /// absent are skipped); `count` is how many values the caller expects to be checked.
    public func validate(field: String, ofLinesIn file: String, count: Int, what: String) throws -> SchemaCheck? {
        guard try Self.validatorIsAvailable() else { return nil }
        let (status, output, errors) = try Self.python([Self.validatorScript, "--field", field, path, file])
        return SchemaCheck(schema: self, what: what, lines: count, status: status, output: output, report: errors)
    }

    /// Checks the schema files themselves against the 2020-12 metaschema (nil as above).
    public static func checkSchemaFiles() throws -> SchemaCheck? {
        guard try validatorIsAvailable() else { return nil }
        let (status, output, errors) = try python([validatorScript, "--check-schemas"] + allCases.map(\.path))
        return SchemaCheck(schema: nil, what: "the schema files", lines: allCases.count, status: status,
                           output: output, report: errors)
    }

    /// Every distinct snapshot (`snapshot` and `previous`) and every distinct diff of a
    /// database's plan_history, as JSON text. Distinct, because a row's `previous` is
    /// usually the row before's `snapshot`: the same document need not be checked twice.
    public static func planHistoryDocuments(_ connection: PostgresConnection) throws
        -> (snapshots: [String], diffs: [String]) {
        var snapshots: [String] = []
        try connection.forEachRow(
            """
            SELECT snapshot::text FROM plan_history
            UNION SELECT previous::text FROM plan_history WHERE previous IS NOT NULL
            """, purpose: "reading plan_history's snapshots for the schema check") { row in
            snapshots.append(try row.string(0))
            return .continue
        }
        var diffs: [String] = []
        try connection.forEachRow("SELECT DISTINCT diff::text FROM plan_history",
                                  purpose: "reading plan_history's diffs for the schema check") { row in
            diffs.append(try row.string(0))
            return .continue
        }
        return (snapshots, diffs)
    }

    /// Checks of everything a database's runs stored: the outbox's lines (every emitted
    /// notification line was one), and plan_history's snapshots and diffs. Empty for a
    /// database without the job's tables, or where the validator may be missing (see
    /// `validate`).
    public static func checksOfStoredDocuments(_ connection: PostgresConnection, what: String) throws -> [SchemaCheck] {
        let migrated = try connection.query(
            "SELECT to_regclass('plan_history') IS NOT NULL AND to_regclass('notification_outbox') IS NOT NULL",
            purpose: "looking for the job's tables").singleRow().bool(0)
        guard migrated else { return [] }
        var lines: [String] = []
        try connection.forEachRow("SELECT payload FROM notification_outbox",
                                  purpose: "reading the outbox for the schema check") { row in
            lines.append(try row.string(0))
            return .continue
        }
        let documents = try planHistoryDocuments(connection)
        var checks: [SchemaCheck] = []
        for (schema, batch) in [(PublishedSchema.notificationLine, lines), (.snapshot, documents.snapshots),
                                (.diff, documents.diffs)] where !batch.isEmpty {
            if let check = try schema.validate(batch, what: "\(what): \(schema.rawValue) documents") {
                checks.append(check)
            }
        }
        return checks
    }

    static let python3 = "/usr/bin/python3"

    private static func validatorIsAvailable() throws -> Bool {
        if hasJSONSchemaModule { return true }
        if isCI { throw PublishedSchemaError.validatorMissing }
        return false
    }

    private static let hasJSONSchemaModule: Bool =
        FileManager.default.isExecutableFile(atPath: python3)
            && (try? python(["-c", "import jsonschema"]).status) == 0

    private static var isCI: Bool {
        ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// Runs python3 with output to files (no pipe to fill up) and waits for it.
    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python3)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus,
                (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// What `deploy/validate-json.py` said about a set of documents.
public struct SchemaCheck: Sendable, CustomStringConvertible {
    public let schema: PublishedSchema?
    public let what: String
    public let lines: Int
    public let status: Int32
    public let output: String
    /// The validator's messages: file:line, the failing field and why.
    public let report: String

    /// Valid, and the validator saw every line (`valid N`, N the number of lines given).
    public var isValid: Bool {
        status == 0 && output.trimmingCharacters(in: .whitespacesAndNewlines) == "valid \(lines)"
    }

    public var description: String {
        let against = schema.map { " against docs/schemas/\($0.rawValue).schema.json" } ?? ""
        return "\(what) (\(lines) documents)\(against): exit \(status), \(output.trimmingCharacters(in: .whitespacesAndNewlines)) "
            + String(report.prefix(2_000))
    }
}

public enum PublishedSchemaError: Error, CustomStringConvertible {
    case validatorMissing

    public var description: String {
        "python3 with jsonschema is not installed (Debian package python3-jsonschema): run the tests with "
            + "deploy/test.sh, which installs it (deploy/install-deps.sh --test); CI=true: the schema checks fail "
            + "instead of being skipped"
    }
}

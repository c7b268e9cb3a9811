import NightlyRun
import PlanJSON
import PlanRules
import PlanStore

/// How `plan-regen history` prints plans.
public enum HistoryFormat: String, Sendable, CaseIterable {
    /// One user's timeline, one line per plan, newest first (for people).
    case table
    /// RFC 4180 CSV with a header row (spreadsheets, analysts).
    case csv
    /// One JSON object per line, snapshot and diff included (jq, scripts).
    case json
}

/// Prints history records as they stream in, a few hundred lines per write, so an
/// export of millions of plans needs no more memory than one chunk.
public struct HistoryPrinter {
    private let format: HistoryFormat
    /// Numbers and dates of the table (`--locale`); CSV and JSON never change with it.
    private let readable: ReadableFormat
    private let output: LineWriter
    private var pending: [String] = []
    public private(set) var printed = 0

    public static let csvColumns = [
        "user_id", "plan_date", "seq", "generated_at", "run_id", "reasons", "event", "details",
        "calories", "protein_g", "fat_g", "carbs_g", "water_ml", "bmr", "tdee", "phase",
        "weight_kg_reported", "rules_version", "diff",
    ]

    /// Writes the header (CSV) or title (table) at once.
    public init(format: HistoryFormat, output: LineWriter, title: String,
                readable: ReadableFormat = .standard) throws {
        self.format = format
        self.readable = readable
        self.output = output
        switch format {
        case .table: try output.emit([title])
        case .csv: try output.emit([Self.csvColumns.joined(separator: ",")])
        case .json: break
        }
    }

    public mutating func add(_ record: HistoryRecord) throws {
        pending.append(try line(for: record))
        printed += 1
        if pending.count >= 500 { try flush() }
    }

    /// Writes what is buffered; `emptyMessage` goes out (table only) when nothing matched.
    public mutating func finish(emptyMessage: String) throws {
        if printed == 0, format == .table { pending.append(emptyMessage) }
        try flush()
    }

    private mutating func flush() throws {
        try output.emit(pending)
        pending.removeAll(keepingCapacity: true)
    }

    private func line(for record: HistoryRecord) throws -> String {
        let summary = try Self.summary(of: record, readable: format == .table ? readable : .standard)
        let reasons = record.reasons.joined(separator: ";")
        switch format {
        case .table:
            let rerun = record.seq > 0 ? ", rerun \(record.seq)" : ""
            return "\(readable.timelineDate(record.planDate)) — \(summary.event) — \(summary.details)"
                + "  [\(record.reasons.joined(separator: ", "))\(rerun); run \(record.runID)]"
        case .csv:
            let fields: [String] = [
                "\(record.userID)", record.planDate.description, "\(record.seq)", record.generatedAt.rfc3339,
                "\(record.runID)", reasons, summary.event, summary.details, "\(record.calories)",
                "\(record.proteinG)", "\(record.fatG)", "\(record.carbsG)", "\(record.waterMl)", "\(record.bmr)",
                "\(record.tdee)", record.phase, record.weightKgReported, record.rulesVersion, record.diffJSON,
            ]
            return fields.map(Self.csvField).joined(separator: ",")
        case .json:
            let reasonList = record.reasons.map { JSONValue.string($0).jsonString }.joined(separator: ",")
            return "{\"user_id\":\(record.userID),\"plan_date\":\(quoted(record.planDate.description))"
                + ",\"seq\":\(record.seq),\"generated_at\":\(quoted(record.generatedAt.rfc3339))"
                + ",\"run_id\":\(record.runID),\"reasons\":[\(reasonList)]"
                + ",\"event\":\(quoted(summary.event)),\"details\":\(quoted(summary.details))"
                + ",\"snapshot\":\(record.snapshotJSON),\"diff\":\(record.diffJSON)}"
        }
    }

    private func quoted(_ text: String) -> String { JSONValue.string(text).jsonString }

    /// The timeline wording of a record, from its stored diff.
    static func summary(of record: HistoryRecord, readable: ReadableFormat = .standard) throws -> PlanChangeSummary {
        guard let changes = try FieldChange.diff(json: record.diffJSON) else {
            throw HistoryError.unreadableDiff(userID: record.userID, planDate: record.planDate)
        }
        return PlanChangeSummary(changes: changes, calories: record.calories, proteinG: record.proteinG,
                                 waterMl: record.waterMl, format: readable)
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}

/// A history row that cannot be shown.
public enum HistoryError: Error, CustomStringConvertible {
    case unreadableDiff(userID: Int64, planDate: LocalDate)

    public var description: String {
        switch self {
        case let .unreadableDiff(userID, planDate):
            "plan_history.diff of user \(userID) on \(planDate) is not a JSON array; the row was edited by hand?"
        }
    }
}

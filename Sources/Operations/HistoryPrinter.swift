import LineOutput
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

    public mutating func add(_ plan: WrittenPlan) throws {
        pending.append(line(for: plan))
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

    private func line(for plan: WrittenPlan) -> String {
        let summary = Self.summary(of: plan, readable: format == .table ? readable : .standard)
        let reasons = plan.snapshot.reasons.map(\.rawValue)
        switch format {
        case .table:
            let rerun = plan.seq > 0 ? ", rerun \(plan.seq)" : ""
            return "\(readable.timelineDate(plan.planDate)) — \(summary.event) — \(summary.details)"
                + "  [\(reasons.joined(separator: ", "))\(rerun); run \(plan.runID)]"
        case .csv:
            let targets = plan.snapshot.targets
            // The snapshot's text of the weight: validated weights (at most 500 kg) have no
            // thousands to group.
            let weight = fixedPoint(plan.snapshot.inputs.weightReportedTenthsKg, decimals: 1)
            let fields: [String] = [
                "\(plan.userID)", plan.planDate.description, "\(plan.seq)", plan.generatedAt.rfc3339,
                "\(plan.runID)", reasons.joined(separator: ";"), summary.event, summary.details, "\(targets.calories)",
                "\(targets.proteinG)", "\(targets.fatG)", "\(targets.carbsG)", "\(targets.waterMl)", "\(targets.bmr)",
                "\(targets.tdee)", plan.snapshot.phase.phase.rawValue,
                weight, plan.snapshot.rulesVersion, plan.storedDiffJSON,
            ]
            return fields.map(Self.csvField).joined(separator: ",")
        case .json:
            return plan.snapshot.historyJSONLine(
                userID: plan.userID, seq: plan.seq, generatedAt: plan.generatedAt, runID: plan.runID, event: summary.event,
                details: summary.details, storedSnapshotJSON: plan.storedSnapshotJSON, storedDiffJSON: plan.storedDiffJSON)
        }
    }

    /// The timeline wording of a written plan.
    static func summary(of plan: WrittenPlan, readable: ReadableFormat = .standard) -> PlanChangeSummary {
        let targets = plan.snapshot.targets
        return PlanChangeSummary(changes: plan.diff, calories: targets.calories, proteinG: targets.proteinG,
                                 waterMl: targets.waterMl, format: readable)
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}

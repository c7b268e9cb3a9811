import PlanJSON
import PlanRules

/// One changed field of a plan, ready to print: `targets.calories` 1,950 → 1,975.
/// Made from a diff entry the rules compute (`explain`) or one read back from
/// `plan_history.diff` (`history`), so both commands word changes the same way.
public struct FieldChange: Hashable, Sendable {
    public var path: String
    public var before: String
    public var after: String

    public init(path: String, before: String, after: String) {
        self.path = path
        self.before = before
        self.after = after
    }

    public init(_ entry: DiffEntry, format: ReadableFormat = .standard) {
        self.init(path: entry.path, before: Self.text(entry.before, format), after: Self.text(entry.after, format))
    }

    /// `{"path": …, "before": …, "after": …}` as `plan_history.diff` stores it; nil for
    /// anything else.
    public init?(json: JSONValue, format: ReadableFormat = .standard) {
        guard case .string(let path)? = json["path"], let before = json["before"], let after = json["after"] else {
            return nil
        }
        self.init(path: path, before: Self.text(before, format), after: Self.text(after, format))
    }

    /// The field's name without its section: `calories` for `targets.calories`.
    public var field: String { path.split(separator: ".").last.map(String.init) ?? path }

    private static func text(_ value: DiffValue, _ format: ReadableFormat) -> String {
        switch value {
        case .null: "none"
        case let .number(scaled, decimals): format.fixedPoint(scaled, decimals: decimals)
        case .string(let text): text
        case .strings(let texts): texts.isEmpty ? "none" : texts.joined(separator: ", ")
        case .instant(let instant): instant.rfc3339
        }
    }

    private static func text(_ value: JSONValue, _ format: ReadableFormat) -> String {
        switch value {
        case .null: return "none"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            // Integers get thousands separators (1,975); decimals keep their precision (82.0).
            if let whole = Int(number.text) { return format.integer(whole) }
            // Decimals keep their digits; a locale only changes the separators.
            if format != .standard, let point = number.text.firstIndex(of: "."),
               let scaled = Int(number.text.replacingAll(".", with: "")) {
                return format.fixedPoint(scaled, decimals: number.text.distance(from: point, to: number.text.endIndex) - 1)
            }
            return number.text
        case .string(let text): return text
        case .array(let values): return values.isEmpty ? "none" : values.map { text($0, format) }.joined(separator: ", ")
        case .object: return value.jsonString
        }
    }
}

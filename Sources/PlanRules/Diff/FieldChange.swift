/// One field of a plan that went from `before` to `after` (plan-rules.md section 6):
/// `{"path":"targets.calories","before":1850,"after":1700,"delta":-150}`. The one model
/// of a change: an entry of a history row's diff, a change in a notification's `data`,
/// and what `history` and `explain` word for people.
public struct FieldChange: Hashable, Sendable {
    /// The leaf (`inputs.weight_kg_basis`), or `flags` / `rules_version`.
    public var path: PlanField
    public var before: DiffValue
    public var after: DiffValue

    public init(path: PlanField, before: DiffValue, after: DiffValue) {
        self.path = path
        self.before = before
        self.after = after
    }

    /// `after − before` at the field's precision (`-1.1`, `0.9`, `500`); nil unless both
    /// sides are numbers (a null on either side has no delta).
    @inlinable public var delta: DiffValue? { DiffValue.delta(from: before, to: after) }

    /// The field's name without its section: `calories` for `targets.calories` (a key of
    /// a notification's `data`).
    public var field: Substring { path.name }

    /// The MATADOR phase this change switches to, when it is section 7's phase switch:
    /// `phase.phase` from deficit to maintenance or back. Nil for any other change, a
    /// change to or from `none` (a new goal) included.
    public var phaseSwitch: Phase? {
        guard path == .phase, case .string(let from) = before, case .string(let to) = after,
              let from = Phase(rawValue: from), let to = Phase(rawValue: to),
              from != to, from != .none, to != .none else { return nil }
        return to
    }
}

extension Array where Element == FieldChange {
    /// The phase a diff switches to (`FieldChange.phaseSwitch`), nil when it switches none.
    public var phaseSwitch: Phase? { lazy.compactMap(\.phaseSwitch).first }
}

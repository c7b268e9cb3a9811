/// One leaf value of a snapshot as the diff and the notification `data` see it
/// (plan-rules.md section 6: arrays and nulls are leaves).
public enum DiffValue: Hashable, Sendable {
    case null
    /// A fixed-point number: `scaled` × 10^−`decimals` (82.0 kg is `(820, 1)`,
    /// 0.227 kg/week `(227, 3)`, 1850 kcal `(1850, 0)`). `decimals` is the field's precision,
    /// which is also the precision its `delta` is written with.
    case number(scaled: Int, decimals: Int)
    case string(String)
    case strings([String])
    /// `settings_updated_at`; PostgreSQL's infinities are the `Instant` sentinels.
    case instant(Instant)

    public static func int(_ value: Int) -> DiffValue { .number(scaled: value, decimals: 0) }
    public static func tenths(_ value: Int) -> DiffValue { .number(scaled: value, decimals: 1) }
    static func date(_ value: LocalDate) -> DiffValue { .string(value.description) }

    static func optional<T>(_ value: T?, _ wrap: (T) -> DiffValue) -> DiffValue {
        value.map(wrap) ?? .null
    }

    /// Equality by value, as section 6 asks: numbers at different precisions compare by
    /// what they stand for (`0` and `0.0` are equal, so are `82` and `82.0`).
    public func hasSameValue(as other: DiffValue) -> Bool {
        switch (self, other) {
        case let (.number(a, da), .number(b, db)):
            let decimals = max(da, db)
            return Self.rescale(a, from: da, to: decimals) == Self.rescale(b, from: db, to: decimals)
        default:
            return self == other
        }
    }

    /// `after − before` when both are numbers, at the finer of the two precisions.
    @inlinable static func delta(from before: DiffValue, to after: DiffValue) -> DiffValue? {
        guard case let .number(a, da) = before, case let .number(b, db) = after else { return nil }
        let decimals = max(da, db)
        return .number(scaled: rescale(b, from: db, to: decimals) - rescale(a, from: da, to: decimals),
                       decimals: decimals)
    }

    @inlinable static func rescale(_ value: Int, from decimals: Int, to target: Int) -> Int {
        var result = value
        for _ in decimals..<target { result *= 10 }
        return result
    }
}

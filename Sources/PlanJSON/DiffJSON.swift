import PlanRules

extension Array where Element == FieldChange {
    /// The diff as a JSON array, keys `path`, `before`, `after`, `delta` (only when both
    /// sides are numbers), with the snapshot's number conventions.
    public func jsonBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return bytes
    }

    /// The same bytes appended to `bytes` (a run writes a batch's JSON into one buffer).
    public func appendJSON(to bytes: inout [UInt8]) {
        var writer = JSONWriter(capacity: 64 + count * 80)
        write(into: &writer)
        writer.appendWritten(to: &bytes)
    }

    func write(into writer: inout JSONWriter) {
        writer.raw("[")
        for (index, entry) in enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"path\":"); writer.string(entry.path.rawValue)
            writer.raw(","); writer.change(entry)
            writer.raw("}")
        }
        writer.raw("]")
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

extension JSONWriter {
    /// `"before":…,"after":…`, and `,"delta":…` when both sides are numbers: a diff
    /// entry's and a notification change's members.
    @inline(__always) mutating func change(_ change: FieldChange) {
        raw("\"before\":"); diffValue(change.before)
        raw(",\"after\":"); diffValue(change.after)
        if let delta = change.delta {
            raw(",\"delta\":"); diffValue(delta)
        }
    }

    @inline(__always) mutating func diffValue(_ value: DiffValue) {
        switch value {
        case .null: null()
        case let .number(scaled, decimals): fixedPoint(scaled, decimals: decimals)
        case .string(let text): string(text)
        case .strings(let texts): strings(texts)
        case .instant(let instant): self.instant(instant)
        }
    }
}

extension FieldChange {
    /// The entries of a stored diff (`plan_history.diff`, jsonb: any key order and
    /// spacing): each object with a `path` naming a `PlanField`, a `before` and an `after`;
    /// other entries are skipped. Nil when the text is JSON but not an array.
    public static func diff(json text: String) throws(JSONParseError) -> [FieldChange]? {
        guard case .array(let entries) = try JSONValue(parsing: text) else { return nil }
        return entries.compactMap { entry in
            guard case .string(let name)? = entry["path"], let path = PlanField(rawValue: name),
                  let before = entry["before"], let after = entry["after"] else {
                return nil
            }
            return FieldChange(path: path, before: DiffValue(json: before), after: DiffValue(json: after))
        }
    }
}

extension DiffValue {
    /// A value as a stored diff holds it; a number keeps the precision it is written with
    /// (`82.0` is 820 tenths). What the job never writes there (booleans, objects, mixed
    /// arrays, exponents: a row edited by hand) is kept as its JSON text.
    init(json value: JSONValue) {
        switch value {
        case .null: self = .null
        case .string(let text): self = .string(text)
        case .number(let number):
            let text = number.text
            let decimals = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
            let scaled = text.contains(where: { $0 == "e" || $0 == "E" }) ? nil : number.scaled(decimals: decimals)
            self = scaled.map { .number(scaled: $0, decimals: decimals) } ?? .string(text)
        case .array(let elements):
            let texts = elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
            self = texts.count == elements.count ? .strings(texts) : .string(value.jsonString)
        case .bool, .object: self = .string(value.jsonString)
        }
    }
}

import PlanRules

extension Array where Element == DiffEntry {
    /// The diff as a JSON array, keys `path`, `before`, `after`, `delta` (only when both
    /// sides are numbers), with the snapshot's number conventions.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + count * 80)
        writer.raw("[")
        for (index, entry) in enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"path\":"); writer.string(entry.path)
            writer.raw(",\"before\":"); writer.diffValue(entry.before)
            writer.raw(",\"after\":"); writer.diffValue(entry.after)
            if let delta = entry.delta {
                writer.raw(",\"delta\":"); writer.diffValue(delta)
            }
            writer.raw("}")
        }
        writer.raw("]")
        return writer.bytes
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

extension JSONWriter {
    mutating func diffValue(_ value: DiffValue) {
        switch value {
        case .null: null()
        case let .number(scaled, decimals): fixedPoint(scaled, decimals: decimals)
        case .string(let text): string(text)
        case .strings(let texts): strings(texts)
        case .instant(let instant): self.instant(instant)
        }
    }
}

import PlanRules

// A notification as one JSON line (plan-rules.md section 7): keys in the section's
// order, `user_id` a JSON number, instants RFC 3339 UTC with six fractional digits, no
// pretty printing.

extension PlanNotification {
    /// The JSON object, without a line break.
    public func jsonBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return bytes
    }

    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }

    /// The JSON object appended to `bytes`, without a line break (a run writes a batch's
    /// notification lines into one buffer).
    public func appendJSON(to bytes: inout [UInt8]) {
        var writer = JSONWriter(capacity: 480)
        write(into: &writer)
        writer.appendWritten(to: &bytes)
    }

    func write(into writer: inout JSONWriter) {
        writer.raw("{\"id\":"); writer.string(id)
        writer.raw(",\"type\":"); writer.string(type.rawValue)
        writer.raw(",\"user_id\":"); writer.int(Int(userID))
        writer.raw(",\"plan_date\":"); writer.date(planDate)
        writer.raw(",\"timezone\":"); writer.string(timezone)
        writer.raw(",\"title\":"); writer.string(title)
        writer.raw(",\"body\":"); writer.string(body)
        writer.raw(",\"data\":"); writer.notificationData(data)
        writer.raw(",\"created_at\":"); writer.instant(createdAt)
        writer.raw(",\"deliver_after\":"); writer.instant(deliverAfter)
        writer.raw(",\"schema_version\":"); writer.int(schemaVersion)
        if let locale, let units {
            writer.raw(",\"locale\":"); writer.string(locale)
            writer.raw(",\"units\":"); writer.string(units)
        }
        writer.raw("}")
    }

    /// The JSON object followed by `\n`: one line of the notifications file.
    public func jsonLine() -> [UInt8] { jsonBytes() + [UInt8(ascii: "\n")] }
}

extension JSONWriter {
    mutating func notificationData(_ data: NotificationData) {
        switch data {
        case let .planCreated(calories, proteinG, waterMl):
            raw("{\"calories\":"); int(calories)
            raw(",\"protein_g\":"); int(proteinG)
            raw(",\"water_ml\":"); int(waterMl)
            raw("}")
        case .changes(let changes):
            raw("{")
            for (index, change) in changes.enumerated() {
                if index > 0 { raw(",") }
                string(String(change.field))
                raw(":{"); self.change(change); raw("}")
            }
            raw("}")
        }
    }
}

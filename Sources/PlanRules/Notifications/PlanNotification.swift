/// One push notification about a written plan (plan-rules.md section 7), emitted as one
/// JSON line. At most one per history row.
public struct PlanNotification: Hashable, Sendable {
    /// `"<user_id>:<plan_date>:<type>:<n>"`, n = the number of earlier history rows of the
    /// user with the same plan date, so a re-emitted line can be de-duplicated while a
    /// same-day manual rerun still gets its own id.
    public var id: String
    public var type: NotificationType
    public var userID: Int64
    public var planDate: LocalDate
    /// The snapshot's `inputs.timezone`.
    public var timezone: String
    public var title: String
    public var body: String
    public var data: NotificationData
    /// The run's instant (`--as-of` when given).
    public var createdAt: Instant
    /// 08:00 local on the plan date, or `createdAt` if later: a push computed at
    /// midnight is not sent at midnight.
    public var deliverAfter: Instant
    public var schemaVersion: Int = PlanNotification.schemaVersion
    /// Section 7.1: the copy locale used (`de-DE`) and the units (`metric`, `imperial`);
    /// both nil, and absent from the line, for a user without a locale.
    public var locale: String?
    public var units: String?
    /// The row's `unit_system` when it was neither metric nor imperial (it counted as
    /// NULL): the run logs a warning and counts it. Not part of the line.
    public var unknownUnitSystem: String?

    /// The `schema_version` of the JSON lines this code writes.
    public static let schemaVersion = 1
}

/// Section 7's notification types, in the order they are tried.
public enum NotificationType: String, Hashable, Sendable, CaseIterable {
    case planCreated = "plan_created"
    case phaseSwitch = "phase_switch"
    case targetsUpdated = "targets_updated"
}

/// `data`: the numbers behind the copy.
public enum NotificationData: Hashable, Sendable {
    /// plan_created: `{calories, protein_g, water_ml}`.
    case planCreated(calories: Int, proteinG: Int, waterMl: Int)
    /// Otherwise, for each of `calories`, `protein_g`, `water_ml` and `phase` that changed
    /// (in that order), `{before, after}` plus `delta` for numbers, keyed by the field's name.
    case changes([FieldChange])
}

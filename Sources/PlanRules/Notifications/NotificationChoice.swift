/// The notification for one history row (plan-rules.md section 7), or nil when none
/// applies. The first that applies wins:
///
/// 1. `plan_created` — the first plan (`previous` nil);
/// 2. `phase_switch` — `phase.phase` differs from the previous plan's and both are
///    deficit/maintenance;
/// 3. `targets_updated` — calories, protein_g or water_ml differ.
///
/// Nothing for a reported-weight-only or preferences-only change (targets unchanged).
///
/// - Parameters:
///   - sequence: n of the id, the number of earlier history rows of the user with the
///     same plan date (0 for a scheduled plan).
///   - createdAt: the run's instant.
///   - zone: the zone of `next.inputs.timezone`, for the 08:00 local `deliver_after`.
///   - presentation: the user's language, number format and units (section 7.1), from
///     the live row when the notification is made.
public func planNotification(userID: Int64, previous: Snapshot?, next: Snapshot, sequence: Int,
                             createdAt: Instant, zone: Zone,
                             presentation: NotificationPresentation = .unlocalized) -> PlanNotification? {
    let type: NotificationType
    let data: NotificationData
    if let previous {
        let changes = notificationChanges(from: previous, to: next)
        let phases: Set<Phase> = [.deficit, .maintenance]
        if previous.phase.phase != next.phase.phase,
           phases.contains(previous.phase.phase), phases.contains(next.phase.phase) {
            type = .phaseSwitch
        } else if changes.contains(where: { $0.key != "phase" }) {
            type = .targetsUpdated
        } else {
            return nil
        }
        data = .changes(changes)
    } else {
        type = .planCreated
        data = .planCreated(calories: next.targets.calories, proteinG: next.targets.proteinG,
                            waterMl: next.targets.waterMl)
    }
    let copy = NotificationCopy(type: type, previous: previous, next: next, presentation: presentation)
    let eightAM = zone.localWallTime(next.planDate, secondsIntoDay: 8 * 3600)
    return PlanNotification(
        id: "\(userID):\(next.planDate):\(type.rawValue):\(sequence)",
        type: type, userID: userID, planDate: next.planDate, timezone: next.inputs.timezone,
        title: copy.title, body: copy.body, data: data,
        createdAt: createdAt, deliverAfter: max(eightAM, createdAt),
        locale: presentation.localeField, units: presentation.localeField == nil ? nil : presentation.units.rawValue,
        unknownUnitSystem: presentation.unknownUnitSystem)
}

/// `calories`, `protein_g`, `water_ml` and `phase` where they differ, in that order.
private func notificationChanges(from previous: Snapshot, to next: Snapshot) -> [NotificationChange] {
    let candidates: [NotificationChange] = [
        NotificationChange(key: "calories", before: .int(previous.targets.calories), after: .int(next.targets.calories)),
        NotificationChange(key: "protein_g", before: .int(previous.targets.proteinG), after: .int(next.targets.proteinG)),
        NotificationChange(key: "water_ml", before: .int(previous.targets.waterMl), after: .int(next.targets.waterMl)),
        NotificationChange(key: "phase", before: .string(previous.phase.phase.rawValue),
                           after: .string(next.phase.phase.rawValue)),
    ]
    return candidates.filter { !$0.before.hasSameValue(as: $0.after) }
}

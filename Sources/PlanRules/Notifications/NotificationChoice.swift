/// The notification for one history row (plan-rules.md section 7), or nil when none
/// applies. The first that applies wins:
///
/// 1. `plan_created` — the first plan (no previous plan);
/// 2. `phase_switch` — the diff switches `phase.phase` between deficit and maintenance
///    (`FieldChange.phaseSwitch`);
/// 3. `targets_updated` — calories, protein_g or water_ml differ.
///
/// Nothing for a reported-weight-only or preferences-only change (targets unchanged), nor
/// when section 7.1 leaves the copy nothing to say (an imperial water change that rounds to
/// the same fluid ounces, and no other target changed).
///
/// - Parameters:
///   - sequence: n of the id, the number of earlier history rows of the user with the
///     same plan date (0 for a scheduled plan).
///   - createdAt: the run's instant.
///   - zone: the zone of the plan's `inputs.timezone`, for the 08:00 local `deliver_after`.
///   - presentation: the user's language, number format and units (section 7.1), from
///     the live row when the notification is made.
public func planNotification(for entry: HistoryEntry, userID: Int64, sequence: Int, createdAt: Instant, zone: Zone,
                             presentation: NotificationPresentation = .unlocalized) -> PlanNotification? {
    let next = entry.snapshot
    let type: NotificationType
    let data: NotificationData
    if entry.previous != nil {
        let changes = notifiedPaths.compactMap { path in entry.diff.first { $0.path == path } }
        if entry.phaseSwitch != nil {
            type = .phaseSwitch
        } else if changes.contains(where: { $0.path != .phase }) {
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
    guard let copy = NotificationCopy(type: type, entry: entry, presentation: presentation) else { return nil }
    let eightAM = zone.localWallTime(next.planDate, secondsIntoDay: 8 * 3600)
    return PlanNotification(
        id: notificationID(userID: userID, planDate: next.planDate, type: type, sequence: sequence),
        type: type, userID: userID, planDate: next.planDate, timezone: next.inputs.timezone,
        title: copy.title, body: copy.body, data: data,
        createdAt: createdAt, deliverAfter: max(eightAM, createdAt),
        locale: presentation.localeField, units: presentation.localeField == nil ? nil : presentation.units.rawValue,
        unknownUnitSystem: presentation.unknownUnitSystem)
}

/// `user_id:plan_date:type:sequence` (section 7), written straight into the string's
/// bytes: as string interpolation (six appends, each checked and grown, and a String per
/// number) it was 2% of the job's instructions.
func notificationID(userID: Int64, planDate: LocalDate, type: NotificationType, sequence: Int) -> String {
    let typeName = type.rawValue
    guard planDate.hasFourDigitYear else { return "\(userID):\(planDate):\(typeName):\(sequence)" }
    // Two integers of at most 20 bytes each, the date's 10 and three colons.
    return String(unsafeUninitializedCapacity: 53 + typeName.utf8.count) { text in
        var end = text.putDecimal(userID, at: 0)
        text[end] = UInt8(ascii: ":")
        planDate.putISO(into: text, at: end + 1)
        text[end + 11] = UInt8(ascii: ":")
        end += 12
        for byte in typeName.utf8 {
            text[end] = byte
            end += 1
        }
        text[end] = UInt8(ascii: ":")
        return text.putDecimal(Int64(sequence), at: end + 1)
    }
}

extension UnsafeMutableBufferPointer<UInt8> {
    /// Writes `value` in decimal at `offset`, a sign first when negative, and returns the
    /// offset past it (at most 20 bytes).
    fileprivate func putDecimal(_ value: Int64, at offset: Int) -> Int {
        if value < 0 { self[offset] = UInt8(ascii: "-") }
        return putDecimal(value.magnitude, at: value < 0 ? offset + 1 : offset)
    }
}

/// The fields a notification's `data` lists when they changed, in its order.
private let notifiedPaths: [PlanField] = [.calories, .proteinG, .waterMl, .phase]

/// The title and body people read (plan-rules.md section 7, and 7.1 for the user's
/// language, number format and units): the templates of the user's copy locale
/// (`Copy/CopyTable+*.swift`) filled with the plan's numbers. Changes are signed with `+`
/// or U+2212 MINUS SIGN; values carry their units.
struct NotificationCopy {
    let title: String
    let body: String

    /// Nil when a `targets_updated` copy has nothing left to say (section 7.1: every
    /// changed target is an imperial water change that rounds to the same fluid ounces).
    init?(type: NotificationType, entry: HistoryEntry, presentation: NotificationPresentation = .unlocalized) {
        let copy = LocalizedCopy(presentation)
        let after = entry.snapshot.targets
        func calories(_ name: CopyPlaceholder, _ bytes: inout [UInt8]) -> Bool {
            guard name == .calories else { return false }
            copy.appendNumber(after.calories, to: &bytes)
            return true
        }
        switch type {
        case .planCreated:
            title = copy.text(.planCreatedTitle)
            body = copy.text(.planCreatedBody) { name, bytes in
                switch name {
                case .calories: copy.appendNumber(after.calories, to: &bytes)
                case .protein: copy.appendGrams(after.proteinG, to: &bytes)
                case .water: copy.appendWater(after.waterMl, to: &bytes)
                default: return false
                }
                return true
            }
        case .phaseSwitch where entry.snapshot.phase.phase == .maintenance:
            title = copy.text(.toMaintenanceTitle)
            // When the calorie floor kept the deficit calories at maintenance level, nothing
            // increases; the copy then just names the phase.
            let increases = entry.previous.map { after.calories > $0.targets.calories } ?? false
            body = copy.text(increases ? .toMaintenanceBody : .toMaintenanceAtFloorBody, calories)
        case .phaseSwitch:
            title = copy.text(.toDeficitTitle)
            body = copy.text(.toDeficitBody, calories)
        case .targetsUpdated:
            // The diff's target changes, in its order (calories, protein, water), less those
            // the user's units show as no change.
            let said = entry.diff.compactMap { change -> (CopyKey, before: Int, after: Int)? in
                guard let key = Self.changeCopy(change.path), case .number(let before, 0) = change.before,
                      case .number(let after, 0) = change.after, copy.showsChange(key, before: before, after: after)
                else { return nil }
                return (key, before, after)
            }
            guard !said.isEmpty else { return nil }
            title = copy.text(.targetsUpdatedTitle)
            body = copy.text(.targetsUpdatedBody) { name, bytes in
                guard name == .changes else { return false }
                for (index, change) in said.enumerated() {
                    if index > 0 { copy.append(.listSeparator, to: &bytes) }
                    copy.appendChange(change.0, before: change.before, after: change.after, to: &bytes)
                }
                return true
            }
        }
    }

    private static func changeCopy(_ path: PlanField) -> CopyKey? {
        switch path {
        case .calories: .caloriesChange
        case .proteinG: .proteinChange
        case .waterMl: .waterChange
        default: nil
        }
    }
}

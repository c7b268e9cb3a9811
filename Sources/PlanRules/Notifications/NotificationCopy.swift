/// The title and body people read (plan-rules.md section 7, and 7.1 for the user's
/// language, number format and units): the templates of the user's copy locale
/// (`Copy/CopyTable+*.swift`) filled with the plan's numbers. Changes are signed with `+`
/// or U+2212 MINUS SIGN; values carry their units.
struct NotificationCopy {
    let title: String
    let body: String

    init(type: NotificationType, entry: HistoryEntry, presentation: NotificationPresentation = .unlocalized) {
        let copy = LocalizedCopy(presentation)
        let after = entry.snapshot.targets
        switch type {
        case .planCreated:
            title = copy.text(.planCreatedTitle)
            body = copy.text(.planCreatedBody, [
                "calories": copy.number(after.calories), "protein": copy.grams(after.proteinG),
                "water": copy.water(after.waterMl),
            ])
        case .phaseSwitch where entry.snapshot.phase.phase == .maintenance:
            title = copy.text(.toMaintenanceTitle)
            // When the calorie floor kept the deficit calories at maintenance level, nothing
            // increases; the copy then just names the phase.
            let increases = entry.previous.map { after.calories > $0.targets.calories } ?? false
            body = copy.text(increases ? .toMaintenanceBody : .toMaintenanceAtFloorBody,
                             ["calories": copy.number(after.calories)])
        case .phaseSwitch:
            title = copy.text(.toDeficitTitle)
            body = copy.text(.toDeficitBody, ["calories": copy.number(after.calories)])
        case .targetsUpdated:
            title = copy.text(.targetsUpdatedTitle)
            // The diff's target changes, in its order (calories, protein, water).
            let parts = entry.diff.compactMap { change -> String? in
                guard let key = Self.changeCopy[change.path], case .number(let before, 0) = change.before,
                      case .number(let after, 0) = change.after else { return nil }
                return copy.change(key, before: before, after: after)
            }
            body = copy.text(.targetsUpdatedBody, ["changes": parts.joined(separator: copy.text(.listSeparator))])
        }
    }

    private static let changeCopy: [String: CopyKey] = [
        "targets.calories": .caloriesChange, "targets.protein_g": .proteinChange, "targets.water_ml": .waterChange,
    ]
}

/// The title and body people read (plan-rules.md section 7, and 7.1 for the user's
/// language, number format and units): the templates of the user's copy locale
/// (`Copy/CopyTable+*.swift`) filled with the plan's numbers. Changes are signed with `+`
/// or U+2212 MINUS SIGN; values carry their units.
struct NotificationCopy {
    let title: String
    let body: String

    init(type: NotificationType, previous: Snapshot?, next: Snapshot,
         presentation: NotificationPresentation = .unlocalized) {
        let copy = LocalizedCopy(presentation)
        let after = next.targets
        switch type {
        case .planCreated:
            title = copy.text(.planCreatedTitle)
            body = copy.text(.planCreatedBody, [
                "calories": copy.number(after.calories), "protein": copy.grams(after.proteinG),
                "water": copy.water(after.waterMl),
            ])
        case .phaseSwitch where next.phase.phase == .maintenance:
            title = copy.text(.toMaintenanceTitle)
            // When the calorie floor kept the deficit calories at maintenance level, nothing
            // increases; the copy then just names the phase.
            let increases = previous.map { after.calories > $0.targets.calories } ?? false
            body = copy.text(increases ? .toMaintenanceBody : .toMaintenanceAtFloorBody,
                             ["calories": copy.number(after.calories)])
        case .phaseSwitch:
            title = copy.text(.toDeficitTitle)
            body = copy.text(.toDeficitBody, ["calories": copy.number(after.calories)])
        case .targetsUpdated:
            title = copy.text(.targetsUpdatedTitle)
            var parts: [String] = []
            if let before = previous?.targets {
                if before.calories != after.calories {
                    parts.append(copy.change(.caloriesChange, before: before.calories, after: after.calories))
                }
                if before.proteinG != after.proteinG {
                    parts.append(copy.change(.proteinChange, before: before.proteinG, after: after.proteinG))
                }
                if before.waterMl != after.waterMl {
                    parts.append(copy.change(.waterChange, before: before.waterMl, after: after.waterMl))
                }
            }
            body = copy.text(.targetsUpdatedBody, ["changes": parts.joined(separator: copy.text(.listSeparator))])
        }
    }
}

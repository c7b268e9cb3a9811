/// The title and body people read (plan-rules.md section 7's example copy): thousands
/// separators, changes signed with U+2212 MINUS SIGN, units after each value.
struct NotificationCopy {
    let title: String
    let body: String

    init(type: NotificationType, previous: Snapshot?, next: Snapshot) {
        let after = next.targets
        switch type {
        case .planCreated:
            title = "Your plan is ready"
            body = "Your personalized plan is ready: \(groupedThousands(after.calories)) cal, "
                + "\(groupedThousands(after.proteinG)) g protein, \(groupedThousands(after.waterMl)) ml water a day."
        case .phaseSwitch where next.phase.phase == .maintenance:
            title = "Maintenance phase"
            // When the calorie floor kept the deficit calories at maintenance level, nothing
            // increases; the copy then just names the phase.
            if let before = previous?.targets.calories, after.calories > before {
                body = "Your calories are increasing to \(groupedThousands(after.calories)) today! 🎉"
            } else {
                body = "Your maintenance phase starts today: \(groupedThousands(after.calories)) cal."
            }
        case .phaseSwitch:
            title = "Deficit phase"
            body = "Your deficit phase starts today: \(groupedThousands(after.calories)) cal."
        case .targetsUpdated:
            title = "Your plan was updated"
            var parts: [String] = []
            if let before = previous?.targets {
                if before.calories != after.calories {
                    parts.append("Calories " + Self.change(before.calories, after.calories, unit: ""))
                }
                if before.proteinG != after.proteinG {
                    parts.append("Protein " + Self.change(before.proteinG, after.proteinG, unit: " g"))
                }
                if before.waterMl != after.waterMl {
                    parts.append("Water " + Self.change(before.waterMl, after.waterMl, unit: " ml"))
                }
            }
            body = "Your new targets start today: " + parts.joined(separator: ", ") + "."
        }
    }

    /// `2,870 ml → 2,832 ml (−38 ml)`.
    private static func change(_ before: Int, _ after: Int, unit: String) -> String {
        "\(groupedThousands(before))\(unit) → \(groupedThousands(after))\(unit) (\(signed(after - before))\(unit))"
    }
}

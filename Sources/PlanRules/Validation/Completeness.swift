extension ReadSettings {
    /// Section 1.1: a row whose `onboarding_completed` is not true, or whose height or
    /// current weight is NULL or 0 as read (the app's "skip onboarding" defaults), is
    /// incomplete: skipped, not an error. Checked before validity.
    public var isIncomplete: Bool { !missingForCompleteness.isEmpty }

    /// What makes the row incomplete, in words for ops (`explain`); empty when complete.
    public var missingForCompleteness: [String] {
        var missing: [String] = []
        if !onboardingCompleted { missing.append("onboarding_completed is not true") }
        if heightTenthsCm == nil || heightTenthsCm == 0 { missing.append("height_cm is NULL or 0") }
        if currentWeightTenthsKg == nil || currentWeightTenthsKg == 0 {
            missing.append("current_weight_kg is NULL or 0")
        }
        return missing
    }
}

extension ReadSettings {
    /// Section 1.1: a row whose `onboarding_completed` is not true, or whose height or
    /// current weight is NULL or 0 as read (the app's "skip onboarding" defaults), is
    /// incomplete: skipped, not an error. Checked before validity.
    public var isIncomplete: Bool {
        !onboardingCompleted
            || heightTenthsCm == nil || heightTenthsCm == 0
            || currentWeightTenthsKg == nil || currentWeightTenthsKg == 0
    }
}

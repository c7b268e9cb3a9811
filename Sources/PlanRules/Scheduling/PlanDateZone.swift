/// The zone a user's plan dates and midnights are computed in (plan-rules.md section 2,
/// "Which zone"): the live row's `timezone` (NULL reads as `UTC`), even while a change of
/// it is still pending; when that is not a known zone, the current plan's zone, or UTC if
/// there is no plan.
///
/// nil only if the database knows neither the names involved nor `UTC` itself (a
/// broken installation, which `ZoneDatabase.loadSystem()` refuses to load).
func planDateZone(row: UserSettingsRow, currentPlan: Snapshot?, zones: ZoneDatabase) -> Zone? {
    if let live = zones.zone(named: row.timezone ?? ReadSettings.defaultTimezone) { return live }
    if let planZone = currentPlan.flatMap({ zones.zone(named: $0.inputs.timezone) }) { return planZone }
    return zones.zone(named: "UTC") ?? zones.zone(named: "Etc/UTC")
}

/// The earliest instant at which `evaluate` could find a reason for this user without a
/// new write to the row (plan-rules.md section 2): the run selects users whose check is
/// due through an index, plus users whose row changed, so this must never be later than
/// a real change. Candidates, all on dates after E (no scheduled regeneration for a date
/// on or before E), at that date's local midnight in the plan-date zone:
///
/// - a pending settings change: the first midnight after its `updated_at`;
/// - the current plan's next MATADOR boundary;
/// - the next birthday of the current plan's date of birth;
/// - for a plan of an older rules version, the first date after E whose midnight is at or
///   after the version's rollout start (section 2.1).
///
/// nil without a current plan (a first plan is made at once, or waits for the row to
/// change) and when no candidate exists. A deploy of new rules is not foreseen here: the
/// run must select the users whose plan or recorded judgement carries an older rules
/// version.
func nextScheduledCheck(row: UserSettingsRow, state: UserPlanState, zone: Zone, rollout: RulesRollout) -> Instant? {
    guard let current = state.currentPlan else { return nil }
    let lastEvaluated = state.lastEvaluatedDate ?? current.planDate
    let firstSchedulable = lastEvaluated.adding(days: 1)
    // The earliest candidate so far (kept, not collected: no array for every user).
    var earliest: LocalDate?
    func consider(_ candidate: LocalDate) {
        if earliest.map({ candidate < $0 }) ?? true { earliest = candidate }
    }

    let version = RowVersion(updatedAt: row.updatedAt, state: state)
    if version.isUnseen, !version.isRecordedAsUnusable,
       let effective = version.firstEffectiveDate(in: zone, notBefore: firstSchedulable) {
        consider(effective)
    }
    if let cycle = matadorCycle(of: current) {
        consider(cycle.nextPhaseSwitchDate(after: lastEvaluated))
    }
    let dateOfBirth = current.inputs.dateOfBirth
    if age(bornOn: dateOfBirth, at: firstSchedulable) != current.inputs.age {
        consider(firstSchedulable)
    } else {
        consider(nextBirthday(bornOn: dateOfBirth, after: lastEvaluated))
    }
    if RulesVersionStanding(of: current.rulesVersion) == .older,
       let rolloutDate = rollout.firstDate(after: lastEvaluated, in: zone) {
        consider(rolloutDate)
    }

    return earliest.map(zone.startOfDay)
}

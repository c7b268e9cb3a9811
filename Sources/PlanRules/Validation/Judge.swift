/// Judges a settings row at a plan date (plan-rules.md sections 1.1 and 1.2): incomplete
/// first, then every rule of the table, reporting the first failing rule of each field,
/// fields in the table's order.
///
/// - Parameter planDate: the date the rules are checked at. When the row's zone is
///   unknown the caller computes it in the zone section 2 uses in its place (the current
///   plan's zone, or UTC), as section 1.2 asks.
public func judge(_ row: UserSettingsRow, planDate: LocalDate, zones: ZoneDatabase) -> RowJudgement {
    let read = ReadSettings(row: row)
    if read.isIncomplete { return .incomplete }
    var rejections: [FieldRejection] = []
    func reject(_ field: SettingsField, _ message: String?) {
        if let message { rejections.append(FieldRejection(field: field, message: message)) }
    }
    reject(.dateOfBirth, dateOfBirthProblem(read.dateOfBirth, planDate: planDate))
    let gender = read.gender.flatMap(Gender.init(rowText:))
    reject(.gender, gender == nil ? ValidationMessage.gender : nil)
    reject(.heightCm, boundsProblem(read.heightTenthsCm, ValidationBounds.heightTenthsCm,
                                    tooSmall: ValidationMessage.heightTooSmall,
                                    tooLarge: ValidationMessage.heightTooLarge))
    reject(.currentWeightKg, boundsProblem(read.currentWeightTenthsKg, ValidationBounds.weightTenthsKg,
                                           tooSmall: ValidationMessage.weightTooSmall,
                                           tooLarge: ValidationMessage.weightTooLarge))
    reject(.targetWeightKg, boundsProblem(read.targetWeightTenthsKg, ValidationBounds.weightTenthsKg,
                                          tooSmall: ValidationMessage.targetWeightTooSmall,
                                          tooLarge: ValidationMessage.targetWeightTooLarge))
    let goal = read.primaryGoal.flatMap(PrimaryGoal.init(rowText:))
    reject(.primaryGoal, goal == nil ? ValidationMessage.primaryGoal : nil)
    let activity = read.activityLevel.flatMap(ActivityLevel.init(rowText:))
    reject(.activityLevel, activity == nil ? ValidationMessage.activityLevel : nil)
    reject(.timezone, zones.isKnown(read.timezone) ? nil : ValidationMessage.unknownTimeZone(read.timezone))
    reject(.mealsPerDay, boundsProblem(read.mealsPerDay, ValidationBounds.mealsPerDay,
                                       tooSmall: ValidationMessage.tooFewMeals,
                                       tooLarge: ValidationMessage.tooManyMeals))
    reject(.dietaryPreferences, listProblem(read.dietaryPreferences, maxCount: ValidationBounds.maxDietaryPreferences,
                                            tooMany: ValidationMessage.tooManyDietaryPreferences,
                                            tooLong: ValidationMessage.dietaryPreferenceTooLong))
    reject(.allergies, listProblem(read.allergies, maxCount: ValidationBounds.maxAllergies,
                                   tooMany: ValidationMessage.tooManyAllergies,
                                   tooLong: ValidationMessage.allergyTooLong))

    guard rejections.isEmpty, let dateOfBirth = read.dateOfBirth, let gender, let goal, let activity,
          let height = read.heightTenthsCm, let weight = read.currentWeightTenthsKg
    else { return .rejected(rejections) }
    return .valid(ValidSettings(
        dateOfBirth: dateOfBirth, gender: gender, heightTenthsCm: height, weightReportedTenthsKg: weight,
        primaryGoal: goal, activityLevel: activity, targetWeightTenthsKg: read.targetWeightTenthsKg,
        targetDate: read.targetDate, dietaryPreferences: read.dietaryPreferences,
        allergies: read.allergies, mealsPerDay: read.mealsPerDay, timezone: read.timezone,
        settingsUpdatedAt: read.updatedAt))
}

/// The date_of_birth rules, in the table's order: NULL, in the future, under 13, over 120.
/// `-infinity` and BC dates are more than 120 years ago; `infinity` is in the future.
private func dateOfBirthProblem(_ dateOfBirth: LocalDate?, planDate: LocalDate) -> String? {
    guard let dateOfBirth else { return ValidationMessage.dateOfBirthInvalid }
    if dateOfBirth > planDate { return ValidationMessage.dateOfBirthInFuture }
    let years = age(bornOn: dateOfBirth, at: planDate)
    if years < ValidationBounds.ageYears.lowerBound { return ValidationMessage.tooYoung }
    if years > ValidationBounds.ageYears.upperBound { return ValidationMessage.dateOfBirthInvalid }
    return nil
}

/// Below or above inclusive bounds; a NULL (absent optional value) passes.
private func boundsProblem(_ value: Int?, _ bounds: ClosedRange<Int>, tooSmall: String, tooLarge: String) -> String? {
    guard let value else { return nil }
    if value < bounds.lowerBound { return tooSmall }
    if value > bounds.upperBound { return tooLarge }
    return nil
}

/// Too many items first, then an item longer than 30 code points.
private func listProblem(_ items: [String], maxCount: Int, tooMany: String, tooLong: String) -> String? {
    if items.count > maxCount { return tooMany }
    if items.contains(where: { $0.codePointCount > ValidationBounds.maxItemLength }) { return tooLong }
    return nil
}

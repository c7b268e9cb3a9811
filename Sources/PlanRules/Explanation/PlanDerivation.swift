/// The steps of a `PlanExplanation`, one per value of sections 3–5, recomputed from the
/// snapshot's inputs so the exact intermediate values (unrounded BMR and TDEE, goal
/// adjustment, floor, lowered fat) can be shown next to the snapshot's own results.
struct PlanDerivation {
    let plan: Snapshot
    let inputs: Snapshot.Inputs
    let targets: PlanTargets
    /// How numbers and dates are written (`explain --locale`).
    let format: ReadableFormat

    init(_ plan: Snapshot, format: ReadableFormat = .standard) {
        self.plan = plan
        self.format = format
        inputs = plan.inputs
        targets = PlanTargets(inputs, cycle: plan.phase.cycleStartDate.map(MatadorCycle.init), planDate: plan.planDate)
    }

    var steps: [PlanExplanation.Step] {
        var steps: [PlanExplanation.Step] = []
        if plan.rulesVersion != rulesVersion {
            steps.append(.init(name: "Rules version",
                               rule: "this plan was made by rules \(plan.rulesVersion); the steps below are rules \(rulesVersion)",
                               calculation: "the next regeneration brings it up to date (rules_changed)"))
        }
        return steps + [age, basisWeight, bmr, tdee, calories, protein, fat, carbs, water, phase,
                        projection, targetDate, flags]
    }

    // MARK: Section 3

    var age: PlanExplanation.Step {
        .init(name: "Age", rule: "whole years completed on the plan date",
              calculation: "born \(format.date(inputs.dateOfBirth)), on \(format.date(plan.planDate)): \(inputs.age) years")
    }

    var basisWeight: PlanExplanation.Step {
        let reported = kg(inputs.weightReportedTenthsKg)
        let basis = kg(inputs.weightBasisTenthsKg)
        let tolerance = tenths(basisWeightToleranceTenthsKg)
        let rule = "targets use the reported weight, unless it is within \(tolerance) kg of the current plan's basis"
        if inputs.weightReportedTenthsKg == inputs.weightBasisTenthsKg {
            return .init(name: "Weight used", rule: rule, calculation: "reported \(reported) = basis \(basis)")
        }
        return .init(name: "Weight used", rule: rule,
                     calculation: "reported \(reported) is within \(tolerance) kg of the basis: targets use \(basis)")
    }

    var bmr: PlanExplanation.Step {
        let s = inputs.gender.bmrConstant
        let (perKg, perCm) = (BMR.perKg, fixedPoint(BMR.perCmTimes100, decimals: 2))
        let numbers = "\(perKg) × \(kg(inputs.weightBasisTenthsKg)) + \(perCm) × \(cm(inputs.heightTenthsCm))"
            + " \(minusSign) \(BMR.perYear) × \(inputs.age) \(s < 0 ? minusSign : "+") \(abs(s))"
        return .init(name: "BMR",
                     rule: "Mifflin–St Jeor: \(perKg) × weight + \(perCm) × height \(minusSign) \(BMR.perYear) × age"
                        + " \(s < 0 ? minusSign : "+") \(abs(s)) (\(inputs.gender.rawValue))",
                     calculation: "BMR = \(numbers) = \(rounded(targets.bmr.times80, over: 80, unit: "kcal"))")
    }

    var tdee: PlanExplanation.Step {
        let multiplier = exactDecimal(inputs.activityLevel.multiplierTimes40, over: 40, format: format)
        return .init(name: "TDEE",
                     rule: "unrounded BMR × \(multiplier) (\(words(inputs.activityLevel.rawValue)))",
                     calculation: "TDEE = \(exactDecimal(targets.bmr.times80, over: 80, format: format)) × \(multiplier) = "
                        + rounded(targets.tdee.times3200, over: 3200, unit: "kcal"))
    }

    var calories: PlanExplanation.Step {
        let calorie = targets.calories
        let goal = words(inputs.primaryGoal.rawValue)
        var rule = "TDEE \(adjustmentWords(calorie.adjustment)) (\(goal)"
        if inputs.primaryGoal == .loseWeight { rule += ", \(targets.phase.rawValue) phase" }
        rule += "), never below \(format.integer(calorie.floor)) (\(inputs.gender.rawValue))"
        let tdee = format.integer(targets.tdee.rounded)
        let sum = calorie.adjustment == 0
            ? tdee
            : "\(tdee) \(calorie.adjustment < 0 ? minusSign : "+") \(abs(calorie.adjustment)) = "
                + format.integer(targets.tdee.rounded + calorie.adjustment)
        let calculation = calorie.floorApplied
            ? "Calories = \(sum), raised to the floor: \(format.integer(calorie.calories)) kcal"
            : "Calories = \(sum) kcal"
        return .init(name: "Calories", rule: rule, calculation: calculation)
    }

    var protein: PlanExplanation.Step {
        let ratio = format.fixedPoint(inputs.primaryGoal.proteinRatioTimes10, decimals: 1)
        return .init(name: "Protein", rule: "weight × \(ratio) g/kg (\(words(inputs.primaryGoal.rawValue)))",
                     calculation: "Protein = \(kg(inputs.weightBasisTenthsKg)) × \(ratio) = "
                        + rounded(inputs.weightBasisTenthsKg * inputs.primaryGoal.proteinRatioTimes10, over: 100, unit: "g"))
    }

    var fat: PlanExplanation.Step {
        let weight = inputs.weightBasisTenthsKg
        let (ratio, minimum) = (MacroTargets.fatRatioTimes10, MacroTargets.minimumFatRatioTimes10)
        let (protein, fat) = (MacroTargets.kcalPerGramProtein, MacroTargets.kcalPerGramFat)
        let full = "Fat = \(kg(weight)) × \(tenths(ratio)) = \(rounded(weight * ratio, over: 100, unit: "g"))"
        let rule = "weight × \(tenths(ratio)) g/kg; lowered so carbs are not negative, never below weight × \(tenths(minimum))"
        let macros = targets.macros
        guard macros.fatLowered else { return .init(name: "Fat", rule: rule, calculation: full) }
        let room = "\(format.integer(targets.calories.calories)) \(minusSign) \(protein) × \(macros.proteinG)"
        if macros.macroOverflow {
            let fitting = floorDivision(targets.calories.calories - protein * macros.proteinG, by: fat)
            return .init(name: "Fat", rule: rule,
                         calculation: full + " leaves no room for carbs; ⌊(\(room)) / \(fat)⌋ = \(format.integer(fitting)) g"
                            + " is below the minimum \(kg(weight)) × \(tenths(minimum)) = \(macros.fatG) g, so fat is"
                            + " \(macros.fatG) g (macro overflow)")
        }
        return .init(name: "Fat", rule: rule,
                     calculation: full + " leaves no room for carbs; lowered to ⌊(\(room)) / \(fat)⌋ = \(macros.fatG) g")
    }

    var carbs: PlanExplanation.Step {
        let macros = targets.macros
        let (protein, fat, carbs) = (MacroTargets.kcalPerGramProtein, MacroTargets.kcalPerGramFat,
                                     MacroTargets.kcalPerGramCarbs)
        let rule = "(calories \(minusSign) \(protein) × protein \(minusSign) \(fat) × fat) / \(carbs), never below 0"
        guard !macros.fatLowered else {
            return .init(name: "Carbs", rule: rule, calculation: "Carbs = 0 g: protein and fat take every calorie")
        }
        let rest = targets.calories.calories - protein * macros.proteinG - fat * macros.fatG
        return .init(name: "Carbs", rule: rule,
                     calculation: "Carbs = (\(format.integer(targets.calories.calories)) \(minusSign) \(protein) ×"
                        + " \(macros.proteinG) \(minusSign) \(fat) × \(macros.fatG)) / \(carbs) = "
                        + rounded(rest, over: carbs, unit: "g"))
    }

    var water: PlanExplanation.Step {
        .init(name: "Water", rule: "weight × \(waterMlPerKg) ml/kg",
              calculation: "Water = \(kg(inputs.weightBasisTenthsKg)) × \(waterMlPerKg) = "
                + rounded(inputs.weightBasisTenthsKg * waterMlPerKg, over: 10, unit: "ml"))
    }

    // MARK: Sections 4 and 5

    var phase: PlanExplanation.Step {
        let days = MatadorCycle.phaseLength
        let rule = "lose weight only: \(days) days in deficit, then \(days) at maintenance, repeating from the cycle start"
        guard let start = plan.phase.cycleStartDate, let day = plan.phase.phaseDay,
              let next = plan.phase.nextPhaseSwitchDate else {
            return .init(name: "MATADOR phase", rule: rule,
                         calculation: "no cycle for \(words(inputs.primaryGoal.rawValue))")
        }
        let n = plan.planDate.days(since: start)
        return .init(name: "MATADOR phase", rule: rule,
                     calculation: "cycle started \(format.date(start)); day \(n) is \(plan.phase.phase.rawValue)"
                        + " day \(day + 1) of \(days); next switch \(format.date(next))")
    }

    var projection: PlanExplanation.Step {
        let rule: String
        let (kcalPerKg, maximumWeeks) = (groupedThousands(WeightProjection.kcalPerKg), WeightProjection.maximumWeeks)
        let weeksRule = "weeks = ⌈remaining kg / weekly rate⌉, shown up to \(maximumWeeks)"
        switch inputs.primaryGoal {
        case .loseWeight:
            rule = "deficit days only: (TDEE \(minusSign) deficit calories) / 2 × 7 / \(kcalPerKg) kg a week; \(weeksRule)"
        case .gainMuscle:
            rule = "(calories \(minusSign) TDEE) × 7 / \(kcalPerKg) kg a week; \(weeksRule)"
        case .maintainWeight, .improveHealth:
            rule = "only lose weight and gain muscle project a date"
        }
        let p = WeightProjection(goal: inputs.primaryGoal, reportedTenthsKg: inputs.weightReportedTenthsKg,
                                 targetTenthsKg: inputs.targetWeightTenthsKg, tdee: targets.tdee.rounded,
                                 calories: targets.calories.calories, deficitPhaseCalories: targets.deficitPhaseCalories)
        guard let perWeek = WeightProjection.gapPerWeeklyKg(inputs.primaryGoal), p.energyGap > 0 else {
            return .init(name: "Projection", rule: rule, calculation: "no projection: no target on the goal's side"
                            + " or no energy gap (weekly rate 0 kg)")
        }
        let rate = "weekly rate = \(format.integer(p.energyGap)) / \(format.integer(perWeek))"
            + " = \(format.fixedPoint(p.weeklyRateThousandthsKg, decimals: 3)) kg"
        let weeks = "⌈\(kg(p.remainingTenthsKg)) × \(format.integer(perWeek)) / \(format.integer(p.energyGap))⌉"
        if let estimated = plan.projection.estimatedWeeks, let date = plan.projection.projectedDate {
            return .init(name: "Projection", rule: rule,
                         calculation: "\(rate); \(weeks) = \(estimated) weeks, reached about \(format.date(date))")
        }
        return .init(name: "Projection", rule: rule,
                     calculation: "\(rate); \(weeks) is more than \(maximumWeeks) weeks: not shown")
    }

    var targetDate: PlanExplanation.Step {
        let rule = "a target date should allow at most \(tenths(TargetDateCheck.safeLossTenthsKgPerWeek)) kg a week to lose"
            + " or \(tenths(TargetDateCheck.safeGainTenthsKgPerWeek)) kg a week to gain"
        guard let date = inputs.targetDate else {
            return .init(name: "Target date", rule: rule, calculation: "no target date")
        }
        if plan.flags.contains(.targetDatePassed) {
            return .init(name: "Target date", rule: rule, calculation: "\(format.date(date)) has passed; it is ignored")
        }
        if let recommended = plan.projection.recommendedTargetDate {
            return .init(name: "Target date", rule: rule,
                         calculation: "\(format.date(date)) is too soon; a safe pace reaches the target by \(format.date(recommended))")
        }
        return .init(name: "Target date", rule: rule, calculation: "\(format.date(date)) allows a safe pace")
    }

    var flags: PlanExplanation.Step {
        .init(name: "Flags", rule: "notes on this plan",
              calculation: plan.flags.isEmpty ? "none" : plan.flags.map(\.rawValue).joined(separator: ", "))
    }

    // MARK: Formatting

    private func kg(_ tenths: Int) -> String { exactDecimal(tenths, over: 10, format: format) + " kg" }
    private func cm(_ tenths: Int) -> String { exactDecimal(tenths, over: 10, format: format) + " cm" }
    /// `moderately_active` → `moderately active`.
    private func words(_ rawValue: String) -> String { String(rawValue.map { $0 == "_" ? " " : $0 }) }
    /// A rule's ratio in tenths, as the rule book writes it whatever the locale: `1.0`.
    private func tenths(_ value: Int) -> String { fixedPoint(value, decimals: 1) }

    /// "1,777.5 kcal, rounded to 1,778 kcal", or "2,870 ml" when already whole.
    private func rounded(_ numerator: Int, over denominator: Int, unit: String) -> String {
        let whole = format.integer(roundHalfAwayFromZero(numerator, over: denominator))
        guard numerator % denominator != 0 else { return "\(whole) \(unit)" }
        return "\(exactDecimal(numerator, over: denominator, format: format)) \(unit), rounded to \(whole) \(unit)"
    }

    private func adjustmentWords(_ adjustment: Int) -> String {
        adjustment == 0 ? "+ 0" : "\(adjustment < 0 ? minusSign : "+") \(abs(adjustment))"
    }
}

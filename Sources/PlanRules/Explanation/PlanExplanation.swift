/// Why a plan's numbers are what they are: each derivation step of plan-rules.md
/// sections 3–5 with its formula in words and in the plan's own numbers, for the
/// `explain` command and the app's "Why it works" screen.
///
/// Built from a snapshot alone (its inputs determine every intermediate value), so a
/// stored plan can be explained later. The unrounded BMR and TDEE are shown exactly,
/// because rounding them early is the mistake the rules forbid.
public struct PlanExplanation: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        /// The spec's name for the value: "BMR", "TDEE", "Calories", "MATADOR phase", …
        public var name: String
        /// The rule in words, e.g. "Mifflin–St Jeor: 10 × weight + 6.25 × height − 5 × age + 5 (male)".
        public var rule: String
        /// The rule in this plan's numbers, e.g. "BMR = 10 × 82 kg + … = 1,777.5 kcal, rounded to 1,778 kcal".
        public var calculation: String
    }

    public var planDate: LocalDate
    public var rulesVersion: String
    public var steps: [Step]
    let format: ReadableFormat

    /// - Parameter format: how numbers and dates are written (`explain --locale`).
    public init(snapshot plan: Snapshot, format: ReadableFormat = .standard) {
        planDate = plan.planDate
        rulesVersion = plan.rulesVersion
        self.format = format
        let derivation = PlanDerivation(plan, format: format)
        steps = derivation.steps
    }

    /// Plain text for a terminal: a heading, then each step's rule and calculation.
    public func render() -> String {
        var lines = ["Plan for \(format.date(planDate)) (rules \(rulesVersion))"]
        for step in steps {
            lines.append("")
            lines.append("\(step.name): \(step.rule)")
            lines.append("  \(step.calculation)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One computed plan, exactly the object of plan-rules.md section 6.
///
/// Weights and heights are held in tenths (`w₁₀`, `h₁₀`) and `weekly_rate_kg` in
/// thousandths, so that the JSON a snapshot writes is exact and two equal plans
/// give equal bytes. Field order below is the JSON key order.
public struct Snapshot: Hashable, Sendable {
    public var rulesVersion: String {
        get { storage.fields.rulesVersion }
        set { update { $0.rulesVersion = newValue } }
    }
    public var planDate: LocalDate {
        get { storage.fields.planDate }
        set { update { $0.planDate = newValue } }
    }
    public var reasons: [DueReason] {
        get { storage.fields.reasons }
        set { update { $0.reasons = newValue } }
    }
    public var inputs: Inputs {
        get { storage.fields.inputs }
        set { update { $0.inputs = newValue } }
    }
    public var targets: Targets {
        get { storage.fields.targets }
        set { update { $0.targets = newValue } }
    }
    public var phase: PhaseInfo {
        get { storage.fields.phase }
        set { update { $0.phase = newValue } }
    }
    public var projection: Projection {
        get { storage.fields.projection }
        set { update { $0.projection = newValue } }
    }
    /// Sorted by raw value, e.g. `[.calorieFloorApplied]`.
    public var flags: [Flag] {
        get { storage.fields.flags }
        set { update { $0.flags = newValue } }
    }

    public init(rulesVersion: String, planDate: LocalDate, reasons: [DueReason], inputs: Inputs,
                targets: Targets, phase: PhaseInfo, projection: Projection, flags: [Flag]) {
        storage = Storage(Fields(rulesVersion: rulesVersion, planDate: planDate, reasons: reasons, inputs: inputs,
                                 targets: targets, phase: phase, projection: projection, flags: flags))
    }

    /// The fields live in one shared, copy-on-write box: a snapshot is 350 bytes of
    /// fields (a dozen of them strings and arrays), and an evaluation moved and copied
    /// three of them (the new plan, the previous one, the state's current plan) several
    /// times a user: those copies were a tenth of the job's CPU (memmove, retain and
    /// release). Now a copy is one pointer and one retain.
    private var storage: Storage

    private struct Fields: Hashable, Sendable {
        var rulesVersion: String
        var planDate: LocalDate
        var reasons: [DueReason]
        var inputs: Inputs
        var targets: Targets
        var phase: PhaseInfo
        var projection: Projection
        var flags: [Flag]
    }

    /// Immutable while shared: `update` copies it first unless this snapshot holds the
    /// only reference, so it is as `Sendable` as the fields it holds.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        change(&storage.fields)
    }

    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }

    /// `inputs` of the snapshot: the effective settings the plan was computed from, and the
    /// age and basis weight derived from them. The settings' fields read and write under
    /// their own names (`inputs.timezone`).
    @dynamicMemberLookup
    public struct Inputs: Hashable, Sendable {
        /// Also what a later scheduled event regenerates from while the live row is pending
        /// or rejected (section 2); the basis derived again from this plan is the same.
        public var settings: ValidSettings
        public var age: Int
        public var weightBasisTenthsKg: Int

        @inlinable public subscript<Value>(dynamicMember field: WritableKeyPath<ValidSettings, Value>) -> Value {
            get { settings[keyPath: field] }
            set { settings[keyPath: field] = newValue }
        }
    }

    /// `targets`: every value already rounded once, half away from zero (section 3.0).
    public struct Targets: Hashable, Sendable {
        public var bmr: Int
        public var tdee: Int
        public var calories: Int
        public var proteinG: Int
        public var fatG: Int
        public var carbsG: Int
        public var waterMl: Int

        public init(bmr: Int, tdee: Int, calories: Int, proteinG: Int, fatG: Int, carbsG: Int, waterMl: Int) {
            self.bmr = bmr
            self.tdee = tdee
            self.calories = calories
            self.proteinG = proteinG
            self.fatG = fatG
            self.carbsG = carbsG
            self.waterMl = waterMl
        }
    }

    /// `phase` (section 4). For goals other than lose_weight: `.none` and nil fields.
    public struct PhaseInfo: Hashable, Sendable {
        public var phase: Phase
        public var cycleStartDate: LocalDate?
        public var phaseDay: Int?
        public var nextPhaseSwitchDate: LocalDate?

        public init(phase: Phase, cycleStartDate: LocalDate?, phaseDay: Int?, nextPhaseSwitchDate: LocalDate?) {
            self.phase = phase
            self.cycleStartDate = cycleStartDate
            self.phaseDay = phaseDay
            self.nextPhaseSwitchDate = nextPhaseSwitchDate
        }
    }

    /// `projection` (section 5).
    public struct Projection: Hashable, Sendable {
        /// kg per week in thousandths (0.227 kg → 227), always ≥ 0.
        public var weeklyRateThousandthsKg: Int
        public var estimatedWeeks: Int?
        public var projectedDate: LocalDate?
        public var recommendedTargetDate: LocalDate?

        public init(weeklyRateThousandthsKg: Int, estimatedWeeks: Int?, projectedDate: LocalDate?,
                    recommendedTargetDate: LocalDate?) {
            self.weeklyRateThousandthsKg = weeklyRateThousandthsKg
            self.estimatedWeeks = estimatedWeeks
            self.projectedDate = projectedDate
            self.recommendedTargetDate = recommendedTargetDate
        }
    }
}

extension Snapshot.Inputs {
    /// Section 6's fields one by one, as a stored plan is read back. (In an extension, so
    /// that the memberwise `init(settings:age:weightBasisTenthsKg:)` stays.)
    public init(dateOfBirth: LocalDate, age: Int, gender: Gender, heightTenthsCm: Int,
                weightReportedTenthsKg: Int, weightBasisTenthsKg: Int, primaryGoal: PrimaryGoal,
                activityLevel: ActivityLevel, targetWeightTenthsKg: Int?, targetDate: LocalDate?,
                dietaryPreferences: [String], allergies: [String], mealsPerDay: Int,
                timezone: String, settingsUpdatedAt: Instant?) {
        let settings = ValidSettings(
            dateOfBirth: dateOfBirth, gender: gender, heightTenthsCm: heightTenthsCm,
            weightReportedTenthsKg: weightReportedTenthsKg, primaryGoal: primaryGoal, activityLevel: activityLevel,
            targetWeightTenthsKg: targetWeightTenthsKg, targetDate: targetDate, dietaryPreferences: dietaryPreferences,
            allergies: allergies, mealsPerDay: mealsPerDay, timezone: timezone, settingsUpdatedAt: settingsUpdatedAt)
        self.init(settings: settings, age: age, weightBasisTenthsKg: weightBasisTenthsKg)
    }
}

public enum Gender: String, Hashable, Sendable, CaseIterable {
    case male, female, other
}

public enum PrimaryGoal: String, Hashable, Sendable, CaseIterable {
    case loseWeight = "lose_weight"
    case gainMuscle = "gain_muscle"
    case maintainWeight = "maintain_weight"
    case improveHealth = "improve_health"
}

public enum ActivityLevel: String, Hashable, Sendable, CaseIterable {
    case sedentary
    case lightlyActive = "lightly_active"
    case moderatelyActive = "moderately_active"
    case veryActive = "very_active"
    case extremelyActive = "extremely_active"
}

/// MATADOR phase (section 4).
public enum Phase: String, Hashable, Sendable, CaseIterable {
    case deficit, maintenance, none
}

/// Why a user is regenerated (section 2), declared in the order `reasons` lists them.
public enum DueReason: String, Hashable, Sendable, CaseIterable, Comparable {
    case created
    case settingsChanged = "settings_changed"
    case phaseSwitch = "phase_switch"
    case birthday
    case rulesChanged = "rules_changed"
    case manualRerun = "manual_rerun"

    public static func < (lhs: DueReason, rhs: DueReason) -> Bool {
        lhs.position < rhs.position
    }

    /// Its position in `allCases`: the order of `<`, and an index for per-reason counts.
    public var position: Int {
        switch self {
        case .created: 0
        case .settingsChanged: 1
        case .phaseSwitch: 2
        case .birthday: 3
        case .rulesChanged: 4
        case .manualRerun: 5
        }
    }
}

/// Snapshot flags (sections 3 and 5); `flags` is sorted by raw value.
public enum Flag: String, Hashable, Sendable, CaseIterable, Comparable {
    case calorieFloorApplied = "calorie_floor_applied"
    case macroOverflow = "macro_overflow"
    case projectionBeyond10Years = "projection_beyond_10_years"
    case targetDatePassed = "target_date_passed"
    case timelineUnrealistic = "timeline_unrealistic"

    public static func < (lhs: Flag, rhs: Flag) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One row of `user_settings` as the store read it (plan-rules.md section 1), before any
/// rule is applied. Numbers and dates stay in PostgreSQL's text form (`"82.25"`, `"NaN"`,
/// `"Infinity"`, `"infinity"`, `"0044-03-15 BC"`) because reading them — rounding to
/// tenths, NaN and infinities, out-of-range dates — is itself a rule, tested here
/// without a database.
public struct UserSettingsRow: Hashable, Sendable {
    public var userID: Int64
    public var dateOfBirth: String?
    public var gender: String?
    public var heightCm: String?
    public var currentWeightKg: String?
    public var targetWeightKg: String?
    public var primaryGoal: String?
    public var targetDate: String?
    public var activityLevel: String?
    /// nil for a NULL array; elements may be NULL (they are dropped on reading).
    public var dietaryPreferences: [String?]?
    public var allergies: [String?]?
    public var mealsPerDay: Int?
    public var timezone: String?
    public var onboardingCompleted: Bool?
    /// nil for NULL (older than any instant). The store maps `-infinity` to
    /// `Instant.distantPast` and `infinity` to `Instant.distantFuture`.
    public var updatedAt: Instant?
    /// Section 7.1's optional presentation columns (nil when NULL or when the table has
    /// no such column): the notification's language, number format and units. Not plan
    /// inputs: never in the snapshot.
    public var locale: String?
    public var unitSystem: String?

    public init(userID: Int64, dateOfBirth: String? = nil, gender: String? = nil, heightCm: String? = nil,
                currentWeightKg: String? = nil, targetWeightKg: String? = nil, primaryGoal: String? = nil,
                targetDate: String? = nil, activityLevel: String? = nil, dietaryPreferences: [String?]? = nil,
                allergies: [String?]? = nil, mealsPerDay: Int? = nil, timezone: String? = nil,
                onboardingCompleted: Bool? = nil, updatedAt: Instant? = nil, locale: String? = nil,
                unitSystem: String? = nil) {
        self.userID = userID
        self.dateOfBirth = dateOfBirth
        self.gender = gender
        self.heightCm = heightCm
        self.currentWeightKg = currentWeightKg
        self.targetWeightKg = targetWeightKg
        self.primaryGoal = primaryGoal
        self.targetDate = targetDate
        self.activityLevel = activityLevel
        self.dietaryPreferences = dietaryPreferences
        self.allergies = allergies
        self.mealsPerDay = mealsPerDay
        self.timezone = timezone
        self.onboardingCompleted = onboardingCompleted
        self.updatedAt = updatedAt
        self.locale = locale
        self.unitSystem = unitSystem
    }
}

/// What the job remembers about one user between runs (one `plan_state` row).
public struct UserPlanState: Hashable, Sendable {
    /// The latest written plan (history row), nil before the first plan.
    public var currentPlan: Snapshot?
    /// How many history rows carry `currentPlan.planDate` (the `n` of a notification id
    /// for a same-day manual rerun; section 7).
    public var historyRowsOnCurrentPlanDate = 0
    /// E: the plan date of the latest run that regenerated the user, written or not.
    public var lastEvaluatedDate: LocalDate?
    /// The latest `updated_at` the job saw for this user (to the microsecond).
    public var seenUpdatedAt: Instant?
    /// The row version (`updated_at`) last recorded as rejected or incomplete, and the
    /// rules version that judged it: such a version is recorded once (section 1.2).
    public var judgedUpdatedAt: Instant?
    public var judgedRulesVersion: String?
    /// A row version (`updated_at`) still waiting for its midnight, as last judged: the
    /// next scheduled check already covers it, so the run's change selection need not
    /// read the user again until that check comes or the row is written anew.
    public var scheduledUpdatedAt: Instant?

    /// Before the first evaluation: nothing remembered.
    public init() {}
}

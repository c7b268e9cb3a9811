import Testing
@testable import PlanRules
import ZoneFiles

/// Sections 1.1 and 1.2: incomplete rows, then every row of the validation table.
struct ValidationTests {
    static let zones = TimeTestFixtures.zones(knownNames: ["UTC", "Europe/Berlin", "US/Eastern", "Etc/GMT+12", "EST"])
    static let planDate = LocalDate(year: 2026, month: 3, day: 2)

    /// A complete, valid row; each test breaks one thing.
    static func validRow() -> UserSettingsRow {
        UserSettingsRow(userID: 1, dateOfBirth: "1993-06-15", gender: "male", heightCm: "178.0",
                        currentWeightKg: "82.0", targetWeightKg: "75.0", primaryGoal: "lose_weight",
                        targetDate: "2026-09-01", activityLevel: "moderately_active",
                        dietaryPreferences: [], allergies: [], mealsPerDay: 3, timezone: "Europe/Berlin",
                        onboardingCompleted: true, updatedAt: Instant(secondsSinceEpoch: 1_772_355_600))
    }

    static func judged(_ change: (inout UserSettingsRow) -> Void) -> RowJudgement {
        var row = validRow()
        change(&row)
        return judge(row, planDate: planDate, zones: zones)
    }

    /// The messages of the single failing field, or [] when the row is valid.
    static func messages(_ change: (inout UserSettingsRow) -> Void) -> [String] {
        switch judged(change) {
        case .valid: []
        case .incomplete: ["<incomplete>"]
        case .rejected(let rejections): rejections.map(\.message)
        }
    }

    @Test func theUnchangedRowIsValidWithItsReadValues() throws {
        guard case .valid(let settings) = Self.judged({ _ in }) else {
            Issue.record("expected valid")
            return
        }
        #expect(settings.heightTenthsCm == 1780)
        #expect(settings.weightReportedTenthsKg == 820)
        #expect(settings.targetWeightTenthsKg == 750)
        #expect(settings.timezone == "Europe/Berlin")
        #expect(settings.primaryGoal == .loseWeight)
    }

    static func changed(_ change: (inout UserSettingsRow) -> Void) -> UserSettingsRow {
        var row = validRow()
        change(&row)
        return row
    }

    @Test(arguments: [
        changed { $0.onboardingCompleted = nil },
        changed { $0.onboardingCompleted = false },
        changed { $0.heightCm = nil },
        changed { $0.heightCm = "0" },
        changed { $0.heightCm = "0.04" },     // reads as 0.0
        changed { $0.heightCm = "-0.04" },    // reads as 0.0
        changed { $0.currentWeightKg = nil },
        changed { $0.currentWeightKg = "0.000" },
    ])
    func incompleteRowsAreSkipped(row: UserSettingsRow) {
        #expect(judge(row, planDate: Self.planDate, zones: Self.zones) == .incomplete)
    }

    @Test func incompletenessIsCheckedBeforeValidity() {
        // An invalid gender and meals count do not matter: the row is incomplete first.
        let judgement = Self.judged { $0.onboardingCompleted = false; $0.gender = "robot"; $0.mealsPerDay = 0 }
        #expect(judgement == .incomplete)
    }

    @Test(arguments: [
        // date_of_birth, in the table's order
        (nil, "Please enter a valid date of birth"),
        ("2026-03-03", "Date of birth cannot be in the future"),   // the day after the plan date
        ("infinity", "Date of birth cannot be in the future"),
        ("2013-03-03", "You must be at least 13 years old to use GTSD"), // 12 until tomorrow
        ("1905-03-01", "Please enter a valid date of birth"),      // 121 on 2026-03-01
        ("0044-03-15 BC", "Please enter a valid date of birth"),
        ("10000-01-01", "Date of birth cannot be in the future"),
        ("-infinity", "Please enter a valid date of birth"),
        ("2026-03-02", "You must be at least 13 years old to use GTSD"), // born today: 0, not future
    ] as [(String?, String)])
    func dateOfBirthRules(dateOfBirth: String?, message: String) {
        #expect(Self.messages { $0.dateOfBirth = dateOfBirth } == [message])
    }

    @Test(arguments: ["2013-03-02", "1906-03-03", "1906-03-02"])
    func agesThirteenToOneHundredTwentyAreValid(dateOfBirth: String) {
        // 2013-03-02 → 13 today; 1906-03-03 → 119 (120 tomorrow); 1906-03-02 → 120 today.
        #expect(Self.messages { $0.dateOfBirth = dateOfBirth } == [])
    }

    @Test(arguments: [nil, "", "Male", "unknown"] as [String?])
    func genderOutsideTheEnumIsRejected(gender: String?) {
        #expect(Self.messages { $0.gender = gender } == ["Please select your gender"])
    }

    @Test(arguments: [
        ("49.9", "Height must be at least 50 cm (1'8\")"),
        ("49.94", "Height must be at least 50 cm (1'8\")"),
        ("-0.05", "Height must be at least 50 cm (1'8\")"),
        ("-Infinity", "Height must be at least 50 cm (1'8\")"),
        ("300.1", "Height must be less than 300 cm (9'10\")"),
        ("300.05", "Height must be less than 300 cm (9'10\")"),
        ("NaN", "Height must be less than 300 cm (9'10\")"),
        ("Infinity", "Height must be less than 300 cm (9'10\")"),
        ("50", nil), ("49.95", nil), ("300", nil), ("300.04", nil),
    ] as [(String, String?)])
    func heightBoundsAreInclusiveOnReadValues(height: String, message: String?) {
        #expect(Self.messages { $0.heightCm = height } == (message.map { [$0] } ?? []))
    }

    @Test(arguments: [
        ("19.9", "Weight must be at least 20 kg (44 lbs)"),
        ("500.1", "Weight must be less than 500 kg (1102 lbs)"),
        ("NaN", "Weight must be less than 500 kg (1102 lbs)"),
        ("20", nil), ("500", nil), ("19.95", nil),
    ] as [(String, String?)])
    func currentWeightBoundsAreInclusive(weight: String, message: String?) {
        #expect(Self.messages { $0.currentWeightKg = weight } == (message.map { [$0] } ?? []))
    }

    @Test(arguments: [
        ("19.9", "Target weight must be at least 20 kg (44 lbs)"),
        ("500.1", "Target weight must be less than 500 kg (1102 lbs)"),
        ("0", "Target weight must be at least 20 kg (44 lbs)"),
        ("20", nil), ("500", nil),
    ] as [(String, String?)])
    func targetWeightBoundsAreInclusive(target: String, message: String?) {
        #expect(Self.messages { $0.targetWeightKg = target } == (message.map { [$0] } ?? []))
    }

    @Test func aNullTargetWeightAndAPastTargetDateAreValid() {
        #expect(Self.messages { $0.targetWeightKg = nil; $0.targetDate = "2020-01-01" } == [])
    }

    @Test(arguments: [nil, "", "lose weight", "LOSE_WEIGHT"] as [String?])
    func primaryGoalOutsideTheEnumIsRejected(goal: String?) {
        #expect(Self.messages { $0.primaryGoal = goal } == ["Please select your primary goal"])
    }

    @Test(arguments: [nil, "active", "Sedentary"] as [String?])
    func activityLevelOutsideTheEnumIsRejected(level: String?) {
        #expect(Self.messages { $0.activityLevel = level } == ["Please select your activity level"])
    }

    @Test(arguments: ["", "GMT+5", "europe/berlin", "localtime", "Mars/Olympus"])
    func unknownZonesAreRejectedWithTheirName(zone: String) {
        #expect(Self.messages { $0.timezone = zone } == ["Unknown time zone '\(zone)'"])
    }

    @Test(arguments: [nil, "US/Eastern", "Etc/GMT+12", "EST"] as [String?])
    func knownZonesAndNullAreValid(zone: String?) {
        // NULL reads as UTC.
        #expect(Self.messages { $0.timezone = zone } == [])
    }

    @Test(arguments: [
        (0, "At least 1 meal per day required"), (-3, "At least 1 meal per day required"),
        (11, "Maximum 10 meals per day"),
    ])
    func mealsPerDayOutsideOneToTenIsRejected(meals: Int, message: String) {
        #expect(Self.messages { $0.mealsPerDay = meals } == [message])
    }

    @Test(arguments: [1, 10, nil] as [Int?])
    func mealsPerDayOneToTenAndNullAreValid(meals: Int?) {
        #expect(Self.messages { $0.mealsPerDay = meals } == [])
    }

    @Test func dietaryPreferenceRules() {
        let thirty = String(repeating: "a", count: 30)
        let tooLong = String(repeating: "é", count: 31)
        #expect(Self.messages { $0.dietaryPreferences = Array(repeating: "x", count: 10) } == [])
        #expect(Self.messages { $0.dietaryPreferences = [thirty] } == [])
        #expect(Self.messages { $0.dietaryPreferences = Array(repeating: "x", count: 11) }
                == ["Maximum 10 dietary preferences allowed"])
        #expect(Self.messages { $0.dietaryPreferences = [tooLong] }
                == ["Each dietary preference must be at most 30 characters"])
        // Count first: 11 items one of which is too long reports only the count.
        #expect(Self.messages { $0.dietaryPreferences = Array(repeating: tooLong, count: 11) }
                == ["Maximum 10 dietary preferences allowed"])
        // NULL elements are dropped before counting: 10 strings + 1 NULL is fine.
        #expect(Self.messages { $0.dietaryPreferences = Array(repeating: "x", count: 10) + [nil] } == [])
        // 30 code points written as 15 × (e + U+0301) are 30: valid; one more letter is 31.
        let combining = String(repeating: "e\u{301}", count: 15)
        #expect(Self.messages { $0.dietaryPreferences = [combining] } == [])
        #expect(Self.messages { $0.dietaryPreferences = [combining + "x"] }
                == ["Each dietary preference must be at most 30 characters"])
    }

    @Test func allergyRules() {
        #expect(Self.messages { $0.allergies = Array(repeating: "nuts", count: 20) } == [])
        #expect(Self.messages { $0.allergies = Array(repeating: "nuts", count: 21) } == ["Maximum 20 allergies allowed"])
        #expect(Self.messages { $0.allergies = [String(repeating: "b", count: 31)] }
                == ["Each allergy must be at most 30 characters"])
    }

    @Test func everyFailingFieldIsReportedOnceInTheTablesOrder() {
        let judgement = Self.judged {
            $0.allergies = Array(repeating: "x", count: 21)
            $0.timezone = "Nowhere"
            $0.dateOfBirth = "2020-01-01"
            $0.heightCm = "10"
            $0.gender = nil
            $0.mealsPerDay = 12
            $0.targetWeightKg = "600"
        }
        #expect(judgement == .rejected([
            FieldRejection(field: .dateOfBirth, message: "You must be at least 13 years old to use GTSD"),
            FieldRejection(field: .gender, message: "Please select your gender"),
            FieldRejection(field: .heightCm, message: "Height must be at least 50 cm (1'8\")"),
            FieldRejection(field: .targetWeightKg, message: "Target weight must be less than 500 kg (1102 lbs)"),
            FieldRejection(field: .timezone, message: "Unknown time zone 'Nowhere'"),
            FieldRejection(field: .mealsPerDay, message: "Maximum 10 meals per day"),
            FieldRejection(field: .allergies, message: "Maximum 20 allergies allowed"),
        ]))
    }

    @Test func theSystemZoneDatabaseKnowsLinksAndRejectsLibraryAliases() throws {
        let system = try ZoneDatabase.loadSystem()
        var row = Self.validRow()
        row.timezone = "US/Eastern"
        #expect(judge(row, planDate: Self.planDate, zones: system) != .incomplete)
        if case .rejected = judge(row, planDate: Self.planDate, zones: system) { Issue.record("US/Eastern is a link") }
        row.timezone = "posixrules"
        #expect(judge(row, planDate: Self.planDate, zones: system)
                == .rejected([FieldRejection(field: .timezone, message: "Unknown time zone 'posixrules'")]))
    }
}

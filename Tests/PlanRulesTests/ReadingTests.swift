import Testing
@testable import PlanRules

/// Section 1, "Read values": numeric text to tenths, date text to dates, NULL defaults.
struct ReadingTests {
    @Test(arguments: [
        ("82.25", 823),      // 822.5 tenths: the half goes away from zero
        ("82.35", 824),      // 823.5 → 824 (a Double holds 82.35 as 82.3499…: must not give 823)
        ("82.24999", 822),   // hundredths digit 4: below half
        ("-0.05", -1),       // −0.5 tenths → −1
        ("-0.04", 0),        // −0.4 tenths → 0 (reads as 0: an incomplete height/weight)
        ("0.04", 0),
        ("178.0", 1780),
        ("170.8", 1708),
        ("1000.0000", 10000),
        ("50", 500),
        ("49.95", 500),      // 499.5 → 500: a valid 50 cm after reading
        ("49.94", 499),
        ("300.04", 3000),
        ("300.05", 3001),
        ("0000082.25", 823),
        (".5", 5),
    ])
    func numericTextReadsAsTenthsRoundedHalfAwayFromZero(text: String, tenths: Int) {
        #expect(NumericText.tenths(text) == tenths)
    }

    @Test func nanAndInfinityReadAsTooLargeAndMinusInfinityAsTooSmall() {
        // PostgreSQL sorts NaN above every number.
        #expect(NumericText.tenths("NaN") == NumericText.saturationTenths)
        #expect(NumericText.tenths("Infinity") == NumericText.saturationTenths)
        #expect(NumericText.tenths("-Infinity") == -NumericText.saturationTenths)
    }

    @Test func thousandDigitValuesSaturateInsteadOfOverflowing() {
        let huge = String(repeating: "9", count: 1000) + "." + String(repeating: "9", count: 1000)
        #expect(NumericText.tenths(huge) == NumericText.saturationTenths)
        #expect(NumericText.tenths("-" + huge) == -NumericText.saturationTenths)
        // A tiny value with 1000 fraction digits is still exact: 0.0…01 → 0.
        #expect(NumericText.tenths("0." + String(repeating: "0", count: 999) + "1") == 0)
    }

    @Test(arguments: ["", "-", ".", "abc", "1e3", "1.2.3", " 82"])
    func textThatIsNoPostgresNumericReadsAsTooLarge(text: String) {
        #expect(NumericText.tenths(text) == NumericText.saturationTenths)
    }

    @Test func isoDatesReadExactly() {
        #expect(DateText.localDate("1993-06-15") == LocalDate(year: 1993, month: 6, day: 15))
        #expect(DateText.localDate("2000-02-29") == LocalDate(year: 2000, month: 2, day: 29))
        #expect(DateText.localDate("0001-01-01") == LocalDate(year: 1, month: 1, day: 1))
        #expect(DateText.localDate("9999-12-31") == LocalDate(year: 9999, month: 12, day: 31))
    }

    @Test(arguments: ["infinity", "10000-01-01", "5874897-12-31"])
    func infinityAndFiveDigitYearsReadAsTheLastWritableDate(text: String) {
        // After every plan date, and still written as YYYY-MM-DD in a snapshot.
        #expect(DateText.localDate(text) == LocalDate(year: 9999, month: 12, day: 31))
        #expect(DateText.localDate(text)?.description == "9999-12-31")
    }

    @Test(arguments: ["-infinity", "0044-03-15 BC", "0001-12-31 BC", "4714-11-24 BC"])
    func minusInfinityAndBCDatesReadAsTheFirstWritableDate(text: String) {
        // More than 120 years before any plan date.
        #expect(DateText.localDate(text) == LocalDate(year: 1, month: 1, day: 1))
    }

    @Test func bcDatesAreCheckedWithAstronomicalLeapYears() {
        // 1 BC is astronomical year 0, a leap year; 2 BC (year −1) is not.
        #expect(DateText.localDate("0001-02-29 BC") != nil)
        #expect(DateText.localDate("0002-02-29 BC") == nil)
    }

    @Test(arguments: ["", "1993-6-15", "1993-13-01", "1993-02-29", "0000-01-01", "93-06-15", "1993-06-15 AD"])
    func textThatIsNoPostgresDateReadsAsNoDate(text: String) {
        #expect(DateText.localDate(text) == nil)
    }

    @Test func nullsReadAsTheirDefaultsAndNullElementsAreDropped() {
        let read = ReadSettings(row: UserSettingsRow(userID: 7, dietaryPreferences: ["vegan", nil, "halal"],
                                                     allergies: nil))
        #expect(read.mealsPerDay == 3)
        #expect(read.timezone == "UTC")
        #expect(read.dietaryPreferences == ["vegan", "halal"]) // row order kept
        #expect(read.allergies == [])
        #expect(read.onboardingCompleted == false)
        #expect(read.heightTenthsCm == nil)
    }

    @Test func lengthsCountCodePointsLikeCharLength() {
        // "é" as e + U+0301 is one grapheme but two code points; 🇩🇪 is two regional indicators.
        #expect("e\u{301}".codePointCount == 2)
        #expect("🇩🇪".codePointCount == 2)
        #expect("Müsli".codePointCount == 5)
    }
}

/// `NumericText.tenths` reads every text as the slicing reader it replaced did: the
/// spec's cases, signs, dots, saturation, specials and text that is no number.
struct NumericTextReferenceTests {
    /// The reader as written before it walked the bytes in one pass.
    private func referenceTenths(_ text: String) -> Int {
        let saturation = NumericText.saturationTenths
        var bytes = Substring(text).utf8[...]
        switch text {
        case "NaN", "Infinity", "+Infinity": return saturation
        case "-Infinity": return -saturation
        default: break
        }
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let integerDigits = bytes.prefix { $0 != UInt8(ascii: ".") }
        let fractionDigits = bytes.dropFirst(integerDigits.count + 1)
        let hasDot = integerDigits.count < bytes.count
        guard !integerDigits.isEmpty || (hasDot && !fractionDigits.isEmpty),
              integerDigits.allSatisfy(isDigit), fractionDigits.allSatisfy(isDigit)
        else { return saturation }
        var whole = 0
        for digit in integerDigits {
            whole = whole * 10 + Int(digit - UInt8(ascii: "0"))
            if whole >= saturation / 10 { return negative ? -saturation : saturation }
        }
        var fraction = fractionDigits.makeIterator()
        let tenthsDigit = fraction.next().map { Int($0 - UInt8(ascii: "0")) } ?? 0
        let roundsUp = (fraction.next().map { $0 >= UInt8(ascii: "5") }) ?? false
        let magnitude = whole * 10 + tenthsDigit + (roundsUp ? 1 : 0)
        return negative ? -magnitude : magnitude
    }

    @Test func everyTextReadsAsBefore() {
        var texts = ["", "-", "+", ".", "-.", "+.5", "-.05", "1.", "-1.", "0", "-0", "-0.04", "-0.05", "82.25", "82.35",
                     "NaN", "Infinity", "+Infinity", "-Infinity", "-Infinityx", "-NaN", "infinity", "1.2.3", "1..2",
                     "..", " 82", "82 ", "1e3", "１", "99999999999999", "100000000000000", "-100000000000000",
                     "99999999999999.95", "99999999999999x", "-99999999999999999999x", "99999999999999999999.9.",
                     "0.0000000001", "12.34567"]
        // Short texts over the characters that matter, from a fixed seed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let alphabet = Array("0123456789.-+9e N5")
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 59)
            var text = ""
            var bits = state
            for _ in 0..<length {
                bits = bits &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text.append(alphabet[Int(bits >> 33) % alphabet.count])
            }
            texts.append(text)
        }
        for text in texts {
            #expect(NumericText.tenths(text) == referenceTenths(text), "\(text)")
        }
    }
}

/// The enum columns read by `init(rowText:)` exactly as `init(rawValue:)` reads them.
struct EnumTextTests {
    private static let texts = ["", "male", "female", "other", "Male", "males", "mal", "lose_weight", "gain_muscle",
                                "maintain_weight", "improve_health", "lose_muscle", "gain_weight", "lose_weighT",
                                "sedentary", "lightly_active", "moderately_active", "very_active", "extremely_active",
                                "very_activ", "VERY_ACTIVE", "sedentarY", "sédentary", "e\u{301}", "other ", " other"]

    @Test func everyCaseAndEveryOtherTextReadsAsItsRawValue() {
        for text in Self.texts + Gender.allCases.map(\.rawValue) + PrimaryGoal.allCases.map(\.rawValue)
            + ActivityLevel.allCases.map(\.rawValue) {
            #expect(Gender(rowText: text) == Gender(rawValue: text), "\(text)")
            #expect(PrimaryGoal(rowText: text) == PrimaryGoal(rawValue: text), "\(text)")
            #expect(ActivityLevel(rowText: text) == ActivityLevel(rawValue: text), "\(text)")
        }
        for gender in Gender.allCases { #expect(Gender(rowText: gender.rawValue) == gender) }
        for goal in PrimaryGoal.allCases { #expect(PrimaryGoal(rowText: goal.rawValue) == goal) }
        for level in ActivityLevel.allCases { #expect(ActivityLevel(rowText: level.rawValue) == level) }
    }
}

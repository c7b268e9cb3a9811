import Foundation
import PlanJSON
import Testing
@testable import PlanRules
import ZoneFiles

/// plan-rules.md section 7.1: the copy of each locale and variant, numbers the user's way
/// (CLDR through Foundation/ICU), water in US fluid ounces for imperial users, the
/// fallbacks, and lines of users without a locale exactly as before.
@Suite struct NotificationLocaleTests {
    /// Example 13's day-14 pair: the deficit plan and the maintenance plan after it.
    private func plans() throws -> (deficit: Snapshot, maintenance: Snapshot) {
        let example = try #require(SpecExample.all.first { $0.line == 13 })
        return (try #require(try example.snapshot("previous")), try #require(try example.snapshot("expected")))
    }

    private func with(_ plan: Snapshot, calories: Int, protein: Int, water: Int) -> Snapshot {
        var plan = plan
        plan.targets.calories = calories
        plan.targets.proteinG = protein
        plan.targets.waterMl = water
        return plan
    }

    private func copy(_ type: NotificationType, previous: Snapshot?, next: Snapshot, locale: String?,
                      units: String? = nil) -> NotificationCopy? {
        NotificationCopy(type: type, entry: HistoryEntry(snapshot: next, previous: previous),
                         presentation: NotificationPresentation(locale: locale, unitSystem: units))
    }

    // MARK: plan_created, at the grouping edges

    @Test(arguments: [
        ("en-US", "metric", "Your personalized plan is ready: 1,000 cal, 999 g protein, 10,000 ml water a day."),
        ("en-US", nil, "Your personalized plan is ready: 1,000 cal, 999 g protein, 338 fl oz water a day."),
        ("de-DE", nil, "Dein persönlicher Plan ist fertig: 1.000 kcal, 999 g Eiweiß und 10.000 ml Wasser pro Tag."),
        ("es-ES", nil, "Tu plan personalizado está listo: 1000 kcal, 999 g de proteína y 10.000 ml de agua al día."),
        ("fr-FR", nil, "Votre plan personnalisé est prêt\u{A0}: 1\u{202F}000 kcal, 999 g de protéines et 10\u{202F}000 ml d\u{2019}eau par jour."),
        ("de-DE", "imperial", "Dein persönlicher Plan ist fertig: 1.000 kcal, 999 g Eiweiß und 338 fl oz Wasser pro Tag."),
    ] as [(String, String?, String)])
    func planCreated(locale: String, units: String?, body: String) throws {
        let next = with(try plans().deficit, calories: 1000, protein: 999, water: 10_000)
        let made = copy(.planCreated, previous: nil, next: next, locale: locale, units: units)
        #expect(made?.body == body)
    }

    @Test(arguments: [
        ("en-US", "Your plan is ready", "Maintenance phase", "Deficit phase", "Your plan was updated"),
        ("de-DE", "Dein Plan ist fertig", "Erhaltungsphase", "Defizitphase", "Dein Plan wurde aktualisiert"),
        ("es-ES", "Tu plan está listo", "Fase de mantenimiento", "Fase de déficit", "Tu plan se ha actualizado"),
        ("fr-FR", "Votre plan est prêt", "Phase de maintien", "Phase de déficit", "Votre plan a été mis à jour"),
    ])
    func titles(locale: String, created: String, maintenance: String, deficit: String, updated: String) throws {
        let (low, high) = try plans()
        #expect(copy(.planCreated, previous: nil, next: low, locale: locale)?.title == created)
        #expect(copy(.phaseSwitch, previous: low, next: high, locale: locale)?.title == maintenance)
        #expect(copy(.phaseSwitch, previous: high, next: low, locale: locale)?.title == deficit)
        #expect(copy(.targetsUpdated, previous: low, next: with(low, calories: 1, protein: 1, water: 1),
                     locale: locale)?.title == updated)
    }

    // MARK: phase_switch, both ways and the floor variant

    @Test(arguments: [
        ("en-US", "Your calories are increasing to 10,000 today! 🎉", "Your maintenance phase starts today: 9,999 cal.",
         "Your deficit phase starts today: 9,999 cal."),
        ("de-DE", "Deine Kalorien steigen heute auf 10.000! 🎉", "Deine Erhaltungsphase beginnt heute: 9.999 kcal.",
         "Deine Defizitphase beginnt heute: 9.999 kcal."),
        ("es-ES", "¡Hoy tus calorías suben a 10.000! 🎉", "Hoy empieza tu fase de mantenimiento: 9999 kcal.",
         "Hoy empieza tu fase de déficit: 9999 kcal."),
        ("fr-FR", "Aujourd\u{2019}hui, vos calories remontent à 10\u{202F}000\u{202F}! 🎉",
         "Votre phase de maintien commence aujourd\u{2019}hui\u{A0}: 9\u{202F}999 kcal.",
         "Votre phase de déficit commence aujourd\u{2019}hui\u{A0}: 9\u{202F}999 kcal."),
    ])
    func phaseSwitch(locale: String, increasing: String, atFloor: String, toDeficit: String) throws {
        let (deficit, maintenance) = try plans()
        let low = with(deficit, calories: 9999, protein: 100, water: 2000)
        #expect(copy(.phaseSwitch, previous: low, next: with(maintenance, calories: 10_000, protein: 100, water: 2000),
                     locale: locale)?.body == increasing)
        // The floor kept the deficit calories at maintenance level: nothing increases.
        #expect(copy(.phaseSwitch, previous: low, next: with(maintenance, calories: 9999, protein: 100, water: 2000),
                     locale: locale)?.body == atFloor)
        #expect(copy(.phaseSwitch, previous: with(maintenance, calories: 10_000, protein: 100, water: 2000),
                     next: low, locale: locale)?.body == toDeficit)
    }

    // MARK: targets_updated, each combination of changed fields

    /// Before: 1,850 cal, 140 g, 2,870 ml. After: whichever of 1,700 cal, 135 g, 2,832 ml
    /// the combination changes.
    @Test(arguments: [
        ("en-US", "C", "Your new targets start today: Calories 1,850 → 1,700 (−150)."),
        ("en-US", "P", "Your new targets start today: Protein 140 g → 135 g (−5 g)."),
        ("en-US", "W", "Your new targets start today: Water 2,870 ml → 2,832 ml (−38 ml)."),
        ("en-US", "CP", "Your new targets start today: Calories 1,850 → 1,700 (−150), Protein 140 g → 135 g (−5 g)."),
        ("en-US", "CW", "Your new targets start today: Calories 1,850 → 1,700 (−150), Water 2,870 ml → 2,832 ml (−38 ml)."),
        ("en-US", "PW", "Your new targets start today: Protein 140 g → 135 g (−5 g), Water 2,870 ml → 2,832 ml (−38 ml)."),
        ("en-US", "CPW", "Your new targets start today: Calories 1,850 → 1,700 (−150), Protein 140 g → 135 g (−5 g), Water 2,870 ml → 2,832 ml (−38 ml)."),
        ("de-DE", "C", "Deine neuen Ziele ab heute: Kalorien 1.850 → 1.700 (−150)."),
        ("de-DE", "P", "Deine neuen Ziele ab heute: Eiweiß 140 g → 135 g (−5 g)."),
        ("de-DE", "W", "Deine neuen Ziele ab heute: Wasser 2.870 ml → 2.832 ml (−38 ml)."),
        ("de-DE", "CP", "Deine neuen Ziele ab heute: Kalorien 1.850 → 1.700 (−150), Eiweiß 140 g → 135 g (−5 g)."),
        ("de-DE", "CW", "Deine neuen Ziele ab heute: Kalorien 1.850 → 1.700 (−150), Wasser 2.870 ml → 2.832 ml (−38 ml)."),
        ("de-DE", "PW", "Deine neuen Ziele ab heute: Eiweiß 140 g → 135 g (−5 g), Wasser 2.870 ml → 2.832 ml (−38 ml)."),
        ("de-DE", "CPW", "Deine neuen Ziele ab heute: Kalorien 1.850 → 1.700 (−150), Eiweiß 140 g → 135 g (−5 g), Wasser 2.870 ml → 2.832 ml (−38 ml)."),
        ("es-ES", "C", "Tus nuevos objetivos empiezan hoy: calorías 1850 → 1700 (−150)."),
        ("es-ES", "P", "Tus nuevos objetivos empiezan hoy: proteína 140 g → 135 g (−5 g)."),
        ("es-ES", "W", "Tus nuevos objetivos empiezan hoy: agua 2870 ml → 2832 ml (−38 ml)."),
        ("es-ES", "CP", "Tus nuevos objetivos empiezan hoy: calorías 1850 → 1700 (−150), proteína 140 g → 135 g (−5 g)."),
        ("es-ES", "CW", "Tus nuevos objetivos empiezan hoy: calorías 1850 → 1700 (−150), agua 2870 ml → 2832 ml (−38 ml)."),
        ("es-ES", "PW", "Tus nuevos objetivos empiezan hoy: proteína 140 g → 135 g (−5 g), agua 2870 ml → 2832 ml (−38 ml)."),
        ("es-ES", "CPW", "Tus nuevos objetivos empiezan hoy: calorías 1850 → 1700 (−150), proteína 140 g → 135 g (−5 g), agua 2870 ml → 2832 ml (−38 ml)."),
        ("fr-FR", "C", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 1\u{202F}850 → 1\u{202F}700 (−150)."),
        ("fr-FR", "P", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: protéines 140 g → 135 g (−5 g)."),
        ("fr-FR", "W", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: eau 2\u{202F}870 ml → 2\u{202F}832 ml (−38 ml)."),
        ("fr-FR", "CP", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 1\u{202F}850 → 1\u{202F}700 (−150), protéines 140 g → 135 g (−5 g)."),
        ("fr-FR", "CW", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 1\u{202F}850 → 1\u{202F}700 (−150), eau 2\u{202F}870 ml → 2\u{202F}832 ml (−38 ml)."),
        ("fr-FR", "PW", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: protéines 140 g → 135 g (−5 g), eau 2\u{202F}870 ml → 2\u{202F}832 ml (−38 ml)."),
        ("fr-FR", "CPW", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 1\u{202F}850 → 1\u{202F}700 (−150), protéines 140 g → 135 g (−5 g), eau 2\u{202F}870 ml → 2\u{202F}832 ml (−38 ml)."),
    ])
    func targetsUpdated(locale: String, changed: String, body: String) throws {
        let base = try plans().deficit
        let before = with(base, calories: 1850, protein: 140, water: 2870)
        let after = with(base, calories: changed.contains("C") ? 1700 : 1850, protein: changed.contains("P") ? 135 : 140,
                         water: changed.contains("W") ? 2832 : 2870)
        #expect(copy(.targetsUpdated, previous: before, next: after, locale: locale, units: "metric")?.body == body)
    }

    @Test(arguments: [
        ("en-US", "Your new targets start today: Calories 9,999 → 10,000 (+1), Protein 1,000 g → 999 g (−1 g)."),
        ("de-DE", "Deine neuen Ziele ab heute: Kalorien 9.999 → 10.000 (+1), Eiweiß 1.000 g → 999 g (−1 g)."),
        ("es-ES", "Tus nuevos objetivos empiezan hoy: calorías 9999 → 10.000 (+1), proteína 1000 g → 999 g (−1 g)."),
        ("fr-FR", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 9\u{202F}999 → 10\u{202F}000 (+1), protéines 1\u{202F}000 g → 999 g (−1 g)."),
    ])
    func groupingEdgesAndSigns(locale: String, body: String) throws {
        let base = try plans().deficit
        #expect(copy(.targetsUpdated, previous: with(base, calories: 9999, protein: 1000, water: 2000),
                     next: with(base, calories: 10_000, protein: 999, water: 2000), locale: locale)?.body == body)
    }

    @Test(arguments: [("en-US", "(−1,500)"), ("de-DE", "(−1.500)"), ("es-ES", "(−1500)"), ("fr-FR", "(−1\u{202F}500)")])
    func largeNegativeDeltasKeepTheMinusSignAndGroup(locale: String, delta: String) throws {
        let base = try plans().deficit
        let body = copy(.targetsUpdated, previous: with(base, calories: 10_000, protein: 100, water: 2000),
                        next: with(base, calories: 8500, protein: 100, water: 2000), locale: locale)?.body
        #expect(body?.hasSuffix(delta + ".") == true, "\(body ?? "no copy")")
    }

    // MARK: imperial water

    @Test(arguments: [(14, 0), (15, 1), (44, 1), (45, 2), (2351, 79), (2352, 80), (2365, 80), (2366, 80),
                      (2450, 83), (2832, 96), (2870, 97), (10_000, 338)])
    func fluidOuncesRoundHalvesAwayFromZero(milliliters: Int, ounces: Int) {
        #expect(LocalizedCopy.fluidOunces(milliliters) == ounces)
    }

    @Test func anImperialChangeShowsTheRoundedValuesAndTheirDifference() throws {
        let base = try plans().deficit
        let body = copy(.targetsUpdated, previous: with(base, calories: 1850, protein: 140, water: 2870),
                        next: with(base, calories: 1850, protein: 140, water: 2832), locale: "en-US")?.body
        // 97.05 → 95.76 fl oz: shown 97 → 96, difference of the rounded values.
        #expect(body == "Your new targets start today: Water 97 fl oz → 96 fl oz (−1 fl oz).")
        // 79.50 → 79.53 fl oz: 79 → 80 even though the millilitres barely moved.
        let across = copy(.targetsUpdated, previous: with(base, calories: 1850, protein: 140, water: 2351),
                          next: with(base, calories: 1850, protein: 140, water: 2352), locale: "en-US")?.body
        #expect(across == "Your new targets start today: Water 79 fl oz → 80 fl oz (+1 fl oz).")
    }

    /// Section 7.1: an imperial water change that rounds to the same fluid ounces (2,352 ml
    /// and 2,366 ml are both 80 fl oz) is left out of the copy, in every language; the
    /// other changes are still listed and `data` keeps the water change.
    @Test(arguments: [
        ("en-US", "Your new targets start today: Calories 1,850 → 1,700 (−150), Protein 140 g → 135 g (−5 g)."),
        ("de-DE", "Deine neuen Ziele ab heute: Kalorien 1.850 → 1.700 (−150), Eiweiß 140 g → 135 g (−5 g)."),
        ("es-ES", "Tus nuevos objetivos empiezan hoy: calorías 1850 → 1700 (−150), proteína 140 g → 135 g (−5 g)."),
        ("fr-FR", "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{A0}: calories 1\u{202F}850 → 1\u{202F}700 (−150), protéines 140 g → 135 g (−5 g)."),
    ])
    func anImperialWaterChangeOfNoFluidOunceIsLeftOut(locale: String, body: String) throws {
        let base = try plans().deficit
        let before = with(base, calories: 1850, protein: 140, water: 2352)
        let after = with(base, calories: 1700, protein: 135, water: 2366)
        let imperial = copy(.targetsUpdated, previous: before, next: after, locale: locale, units: "imperial")
        #expect(imperial?.body == body)
        #expect(imperial?.body.contains("fl oz") == false)
        // In millilitres the same change is said.
        let metric = copy(.targetsUpdated, previous: before, next: after, locale: locale, units: "metric")
        #expect(metric?.body.hasSuffix(" ml (+14 ml).") == true, "\(metric?.body ?? "no copy")")
    }

    /// Section 7.1: when that water change is all there is to say, no notification is made,
    /// whatever the locale, the zone or the plan date; metric users, users without a locale
    /// and a change of one fluid ounce still get theirs.
    @Test(arguments: ["Pacific/Kiritimati", "Etc/GMT+12", "America/New_York", "Asia/Kathmandu", "Europe/Berlin",
                      "Australia/Lord_Howe"])
    func nothingIsSentWhenNothingIsLeftToSay(zoneName: String) throws {
        let zone = try #require(try ZoneDatabase.loadSystem().zone(named: zoneName))
        let base = try plans().deficit
        func notification(_ water: (Int, Int), _ presentation: NotificationPresentation) -> PlanNotification? {
            var next = with(base, calories: 1850, protein: 140, water: water.1)
            next.inputs.timezone = zoneName
            return planNotification(for: HistoryEntry(snapshot: next, previous: with(base, calories: 1850, protein: 140,
                                                                                     water: water.0)),
                                    userID: 7, sequence: 0, createdAt: Instant(secondsSinceEpoch: 1_772_323_200),
                                    zone: zone, presentation: presentation)
        }
        for locale in ["en-US", "de-DE", "es-ES", "fr-FR", "es-US", "fr-CA"] {
            let imperial = NotificationPresentation(locale: locale, unitSystem: "imperial")
            #expect(notification((2352, 2366), imperial) == nil, "\(locale) in \(zoneName)")
            #expect(notification((2366, 2352), imperial) == nil, "\(locale) in \(zoneName), a decrease")
            let ounce = try #require(notification((2351, 2352), imperial), "\(locale) in \(zoneName)")
            #expect(ounce.type == .targetsUpdated && ounce.body.contains("fl oz"))
            #expect(ounce.data == .changes([FieldChange(path: .waterMl, before: .int(2351), after: .int(2352))]))
            let metric = try #require(notification((2352, 2366), NotificationPresentation(locale: locale, unitSystem: "metric")))
            #expect(metric.type == .targetsUpdated && metric.body.contains(" ml"))
        }
        let unlocalized = try #require(notification((2352, 2366), .unlocalized))
        #expect(unlocalized.body == "Your new targets start today: Water 2,352 ml → 2,366 ml (+14 ml).")
    }

    // MARK: fallbacks, fields, unit systems

    @Test(arguments: [
        ("de-AT", CopyLocale.deDE, "1.975", "metric"), ("de_de", .deDE, "1.975", "metric"), ("DE-de", .deDE, "1.975", "metric"),
        ("en-GB", .enUS, "1,975", "metric"), ("en-US", .enUS, "1,975", "imperial"), ("es-US", .esES, "1,975", "imperial"),
        ("fr-CA", .frFR, "1\u{A0}975", "metric"), ("de-CH", .deDE, "1\u{2019}975", "metric"),
        ("xx-YY", .enUS, "1,975", "metric"), ("tlh", .enUS, "1,975", "metric"),
    ] as [(String, CopyLocale, String, String)])
    func fallbacks(locale: String, copyLocale: CopyLocale, number: String, units: String) {
        let presentation = NotificationPresentation(locale: locale, unitSystem: nil)
        #expect(presentation.copy == copyLocale)
        #expect(presentation.localeField == copyLocale.rawValue)
        #expect(presentation.units.rawValue == units)
        #expect(LocalizedCopy(presentation).number(1975) == number)
    }

    @Test func anUnknownUnitSystemCountsAsNullAndIsReported() {
        let german = NotificationPresentation(locale: "de-DE", unitSystem: "stones")
        #expect(german.units == .metric)
        #expect(german.unknownUnitSystem == "stones")
        let american = NotificationPresentation(locale: "en-US", unitSystem: "Stones")
        #expect(american.units == .imperial)
        #expect(american.unknownUnitSystem == "Stones")
        #expect(NotificationPresentation(locale: "en-US", unitSystem: "METRIC").units == .metric)
        #expect(NotificationPresentation(locale: "de-DE", unitSystem: "Imperial").units == .imperial)
        #expect(NotificationPresentation(locale: "de-DE", unitSystem: "imperial").unknownUnitSystem == nil)
    }

    /// Every line of the spec's examples, made for a user without a locale (NULL, blank,
    /// whatever their unit_system), is byte for byte the line the fixture holds; a locale
    /// adds exactly `locale` and `units` at the end and keeps `data` in metric numbers.
    @Test(arguments: SpecExample.all)
    func linesWithoutALocaleAreUnchangedAndALocaleAddsTwoFields(example: SpecExample) throws {
        let next = try #require(try example.snapshot("expected"))
        let zone = try #require(try ZoneDatabase.loadSystem().zone(named: next.inputs.timezone))
        func line(_ presentation: NotificationPresentation) -> PlanNotification? {
            planNotification(for: HistoryEntry(snapshot: next, previous: try? example.snapshot("previous")), userID: 42, sequence: 0,
                             createdAt: Instant(secondsSinceEpoch: 1_772_323_200), zone: zone, presentation: presentation)
        }
        let today = line(.unlocalized)
        for presentation in [NotificationPresentation(locale: nil, unitSystem: "imperial"),
                             NotificationPresentation(locale: "  ", unitSystem: nil)] {
            #expect(line(presentation)?.jsonString == today?.jsonString)
        }
        guard let today else { return }
        let german = try #require(line(NotificationPresentation(locale: "de_AT", unitSystem: "imperial")))
        #expect(german.locale == "de-DE" && german.units == "imperial")
        #expect(german.jsonString.hasSuffix(",\"schema_version\":1,\"locale\":\"de-DE\",\"units\":\"imperial\"}"))
        #expect(german.data == today.data)
        #expect(german.id == today.id && german.deliverAfter == today.deliverAfter)
        #expect(german.body != today.body)
    }

    @Test func everyLocaleHasEveryEntryWithTheSamePlaceholders() {
        for locale in CopyLocale.allCases {
            for key in CopyKey.allCases {
                let template = locale.table[key]
                #expect(template != nil, "\(locale) lacks \(key.rawValue)")
                let names = Set((template ?? "").split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap {
                    $0.split(separator: "}", maxSplits: 1).first.map(String.init)
                })
                #expect(names == key.placeholders, "\(locale) \(key.rawValue): \(names)")
            }
        }
    }
}

extension CopyKey {
    /// The placeholders an entry uses: every locale's entry has the same ones.
    var placeholders: Set<String> {
        switch self {
        case .planCreatedBody: ["calories", "protein", "water"]
        case .toMaintenanceBody, .toMaintenanceAtFloorBody, .toDeficitBody: ["calories"]
        case .targetsUpdatedBody: ["changes"]
        case .caloriesChange, .proteinChange, .waterChange: ["before", "after", "delta"]
        case .grams, .milliliters, .fluidOunces: ["value"]
        case .planCreatedTitle, .toMaintenanceTitle, .toDeficitTitle, .targetsUpdatedTitle, .listSeparator: []
        }
    }
}

/// `history --locale` and `explain --locale`: numbers and dates through ICU; en-US (the
/// default) is the text as it has always been.
@Suite struct ReadableFormatTests {
    @Test func theDefaultAndEnUSAreTheStandardText() throws {
        let enUS = try #require(ReadableFormat(identifier: "en_us"))
        #expect(enUS == .standard)
        #expect(ReadableFormat.standard.integer(-1975) == "−1,975")
        #expect(ReadableFormat.standard.fixedPoint(823, decimals: 1) == "82.3")
        #expect(ReadableFormat.standard.date(LocalDate(year: 2026, month: 3, day: 16)) == "2026-03-16")
        #expect(ReadableFormat.standard.timelineDate(LocalDate(year: 2025, month: 10, day: 21)) == "Oct 21, 2025")
        #expect(ReadableFormat(identifier: "12") == nil)
    }

    @Test(arguments: [
        ("de-DE", "1.975", "82,3", "16.03.2026", "21. Okt. 2025"),
        ("fr-FR", "1\u{202F}975", "82,3", "16/03/2026", "21 oct. 2025"),
        ("es-ES", "1975", "82,3", "16/03/2026", "21 oct 2025"),
    ])
    func localized(identifier: String, integer: String, decimal: String, date: String, timeline: String) throws {
        let format = try #require(ReadableFormat(identifier: identifier))
        #expect(format.integer(1975) == integer)
        #expect(format.fixedPoint(823, decimals: 1) == decimal)
        #expect(format.fixedPoint(-5, decimals: 1) == "−0" + String(decimal.dropFirst(2).prefix(1)) + "5")
        #expect(format.date(LocalDate(year: 2026, month: 3, day: 16)) == date)
        #expect(format.timelineDate(LocalDate(year: 2025, month: 10, day: 21)) == timeline)
    }
}

/// The compiled templates and the number grouping written straight into the copy give the
/// bytes the fill gave before them: every key of every locale, odd templates, and numbers
/// of 1 to 19 digits of either sign.
@Suite struct CompiledCopyTests {
    /// The fill as it was before templates were compiled: scan for `{name}`, replace the
    /// names given, leave the rest as it is.
    private func referenceFill(_ template: String, _ values: [String: String]) -> String {
        let utf8 = template.utf8
        var result = ""
        var copiedUpTo = utf8.startIndex
        var index = utf8.startIndex
        while let open = utf8[index...].firstIndex(of: UInt8(ascii: "{")) {
            guard let close = utf8[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
            let name = String(template[utf8.index(after: open)..<close])
            index = utf8.index(after: close)
            guard let value = values[name] else { continue }
            result += template[copiedUpTo..<open]
            result += value
            copiedUpTo = index
        }
        result += template[copiedUpTo...]
        return result
    }

    private func compiledFill(_ template: CopyTemplate, _ values: [String: String]) -> String {
        var text = ""
        for piece in template.pieces {
            switch piece {
            case .text(let range): text += String(decoding: template.text[range], as: UTF8.self)
            case .placeholder(let name): text += values[name.rawValue] ?? "{\(name.rawValue)}"
            }
        }
        #expect(template.plainText == nil || template.plainText == text)
        return text
    }

    private static let allValues = Dictionary(uniqueKeysWithValues: CopyPlaceholder.allCases.enumerated().map {
        ($0.element.rawValue, "<\($0.offset) {value}>")
    })

    @Test func everyTemplateOfEveryLocaleFillsAsBefore() {
        for locale in CopyLocale.allCases {
            for key in CopyKey.allCases {
                let source = locale.table[key]!
                let compiled = locale.templates[key.ordinal]
                for values in [Self.allValues, [:], ["value": "7", "before": "1,000"]] {
                    #expect(compiledFill(compiled, values) == referenceFill(source, values), "\(locale) \(key)")
                }
            }
        }
    }

    @Test(arguments: ["", "plain", "{", "}", "}{", "{calories", "{{calories}", "{calories}}", "a{unknown}b{value}c",
                      "{value}{value}", "{}{value", "é{delta}→{after} 🎉{before}", "{ value}", "{Value}"])
    func oddTemplatesFillAsBefore(template: String) {
        for values in [Self.allValues, [:]] {
            #expect(compiledFill(CopyTemplate(template), values) == referenceFill(template, values))
        }
    }

    @Test func ordinalsAreTheOrderOfAllCases() {
        for (offset, key) in CopyKey.allCases.enumerated() { #expect(key.ordinal == offset) }
    }

    /// `groupedThousands` as it was written before `ThousandsGrouping`.
    private func referenceGrouped(_ value: Int, separator: String = ",", fewestDigits: Int = 4) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if digits.count >= fewestDigits, index > 0, (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(digit)
        }
        return value < 0 ? "\u{2212}" + grouped : grouped
    }

    private static let numbers: [Int] = (1...19).flatMap { digits -> [Int] in
        let smallest = (1..<digits).reduce(1) { power, _ in power * 10 }
        let largest = digits < 19 ? smallest * 10 - 1 : Int.max
        return [smallest, largest, smallest + 1_234_567_890_123 % smallest].flatMap { [$0, -$0] }
    } + [0, Int.min, Int.max]

    @Test func groupingMatchesTheByHandGroupingForEverySize() {
        for number in Self.numbers {
            #expect(groupedThousands(number) == referenceGrouped(number), "\(number)")
            for (separator, fewest) in [(".", 4), ("\u{202F}", 4), ("\u{2019}", 5), ("", 4)] {
                let grouping = ThousandsGrouping(separator: separator, fewestDigits: fewest)
                let expected = referenceGrouped(number, separator: separator, fewestDigits: fewest)
                var text = "x"
                grouping.append(number, to: &text)
                #expect(text == "x" + expected, "\(number)")
                var bytes = Array("y".utf8)
                grouping.append(number, toUTF8: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == "y" + expected, "\(number)")
            }
        }
    }

    @Test(arguments: ["en_US", "de_DE", "es_ES", "fr_FR", "de_CH", "fr_CA", "de_AT", "en_GB", "ar_EG", "hi_IN"])
    func localeNumbersMatchICU(identifier: String) {
        let numbers = LocaleNumbers.of(identifier)
        let style = IntegerFormatStyle<UInt>(locale: Locale(identifier: identifier))
        for number in Self.numbers {
            let icu = number.magnitude.formatted(style)
            #expect(numbers.format(number) == (number < 0 ? "\u{2212}" + icu : icu), "\(identifier) \(number)")
        }
    }
}

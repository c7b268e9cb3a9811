import Testing
@testable import PlanRules

@Test func localDateRoundTrip() {
    let d = LocalDate(year: 2024, month: 2, day: 29)
    #expect(d.description == "2024-02-29")
    #expect(LocalDate(iso8601: "2024-02-29") == d)
}

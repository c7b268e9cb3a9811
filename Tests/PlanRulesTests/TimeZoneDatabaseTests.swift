import Foundation
import Testing
@testable import PlanRules

/// One system database for all time tests (reading `tzdata.zi` once).
enum TimeTestFixtures {
    static let database: ZoneDatabase? = try? ZoneDatabase.loadSystem()
}

// The row's enum columns (gender, primary_goal, activity_level) read as their cases.
// `init(rawValue:)` compares the text with each case's raw value in turn; these raw
// values nearly all differ in length, so the length (one load) picks the one candidate,
// and a single comparison confirms it. Same result as `init(rawValue:)` for every text.

extension Gender {
    init?(rowText text: String) {
        let candidate: Gender
        switch text.utf8.count {
        case 4: candidate = .male
        case 6: candidate = .female
        case 5: candidate = .other
        default: return nil
        }
        guard text == candidate.rawValue else { return nil }
        self = candidate
    }
}

extension PrimaryGoal {
    init?(rowText text: String) {
        let candidate: PrimaryGoal
        switch text.utf8.count {
        case 11: candidate = text.utf8.first == UInt8(ascii: "l") ? .loseWeight : .gainMuscle
        case 15: candidate = .maintainWeight
        case 14: candidate = .improveHealth
        default: return nil
        }
        guard text == candidate.rawValue else { return nil }
        self = candidate
    }
}

extension ActivityLevel {
    init?(rowText text: String) {
        let candidate: ActivityLevel
        switch text.utf8.count {
        case 9: candidate = .sedentary
        case 14: candidate = .lightlyActive
        case 17: candidate = .moderatelyActive
        case 11: candidate = .veryActive
        case 16: candidate = .extremelyActive
        default: return nil
        }
        guard text == candidate.rawValue else { return nil }
        self = candidate
    }
}

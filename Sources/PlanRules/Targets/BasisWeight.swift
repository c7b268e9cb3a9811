/// The weight targets are computed from (plan-rules.md section 3, "Weight used").
///
/// Small day-to-day changes of the reported weight must not move every target: the
/// basis follows the reported weight only when there is no current plan or the reported
/// weight differs from the current plan's basis by more than 1.0 kg (|Δw₁₀| > 10).
public func basisWeightTenthsKg(reported: Int, currentPlanBasis: Int?) -> Int {
    guard let basis = currentPlanBasis, abs(reported - basis) <= basisWeightToleranceTenthsKg else {
        return reported
    }
    return basis
}

/// 1.0 kg, in tenths: a reported change up to this keeps the current basis.
public let basisWeightToleranceTenthsKg = 10

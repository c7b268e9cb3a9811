/// Water ml = round(weight × 35) (plan-rules.md section 3).
public func waterMl(weightTenthsKg: Int) -> Int {
    roundHalfAwayFromZero(weightTenthsKg * waterMlPerKg, over: 10)
}

public let waterMlPerKg = 35

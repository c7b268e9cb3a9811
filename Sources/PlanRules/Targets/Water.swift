/// Water ml = round(weight × 35) (plan-rules.md section 3).
public func waterMl(weightTenthsKg: Int) -> Int {
    roundHalfAwayFromZero(weightTenthsKg * 35, over: 10)
}

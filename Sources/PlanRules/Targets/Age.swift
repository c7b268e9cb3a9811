/// Age: whole years completed at a date (plan-rules.md section 3).
///
/// A year is completed once the month and day of birth are reached. A 29 February
/// birthday is therefore completed on 1 March in common years, because 28 February
/// comes before 29 February and 1 March after it.
public func age(bornOn dateOfBirth: LocalDate, at date: LocalDate) -> Int {
    let born = dateOfBirth.components
    let now = date.components
    let reachedBirthday = (now.month, now.day) >= (born.month, born.day)
    return now.year - born.year - (reachedBirthday ? 0 : 1)
}

/// The first date after `date` on which `age(bornOn:at:)` increases: the next birthday,
/// or 1 March for a 29 February birthday in a common year.
public func nextBirthday(bornOn dateOfBirth: LocalDate, after date: LocalDate) -> LocalDate {
    let born = dateOfBirth.components
    var year = date.year
    while true {
        let candidate = born.month == 2 && born.day == 29 && !LocalDate.isLeapYear(year)
            ? LocalDate(year: year, month: 3, day: 1)
            : LocalDate(year: year, month: born.month, day: born.day)
        if candidate > date { return candidate }
        year += 1
    }
}

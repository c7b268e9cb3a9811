// en-US: plan-rules.md section 7's copy, word for word (metric units; imperial shows water
// in US fluid ounces).
extension CopyLocale {
    static let enUSTable: CopyTable = [
        .planCreatedTitle: "Your plan is ready",
        .planCreatedBody: "Your personalized plan is ready: {calories} cal, {protein} protein, {water} water a day.",
        .toMaintenanceTitle: "Maintenance phase",
        .toMaintenanceBody: "Your calories are increasing to {calories} today! 🎉",
        .toMaintenanceAtFloorBody: "Your maintenance phase starts today: {calories} cal.",
        .toDeficitTitle: "Deficit phase",
        .toDeficitBody: "Your deficit phase starts today: {calories} cal.",
        .targetsUpdatedTitle: "Your plan was updated",
        .targetsUpdatedBody: "Your new targets start today: {changes}.",
        .caloriesChange: "Calories {before} → {after} ({delta})",
        .proteinChange: "Protein {before} → {after} ({delta})",
        .waterChange: "Water {before} → {after} ({delta})",
        .listSeparator: ", ",
        .grams: "{value} g",
        .milliliters: "{value} ml",
        .fluidOunces: "{value} fl oz",
    ]
}

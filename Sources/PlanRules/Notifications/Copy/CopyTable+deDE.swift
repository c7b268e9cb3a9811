// de-DE: informal ("du"), as the app speaks to its users.
extension CopyLocale {
    static let deDETable: CopyTable = [
        .planCreatedTitle: "Dein Plan ist fertig",
        .planCreatedBody: "Dein persönlicher Plan ist fertig: {calories} kcal, {protein} Eiweiß und {water} Wasser pro Tag.",
        .toMaintenanceTitle: "Erhaltungsphase",
        .toMaintenanceBody: "Deine Kalorien steigen heute auf {calories}! 🎉",
        .toMaintenanceAtFloorBody: "Deine Erhaltungsphase beginnt heute: {calories} kcal.",
        .toDeficitTitle: "Defizitphase",
        .toDeficitBody: "Deine Defizitphase beginnt heute: {calories} kcal.",
        .targetsUpdatedTitle: "Dein Plan wurde aktualisiert",
        .targetsUpdatedBody: "Deine neuen Ziele ab heute: {changes}.",
        .caloriesChange: "Kalorien {before} → {after} ({delta})",
        .proteinChange: "Eiweiß {before} → {after} ({delta})",
        .waterChange: "Wasser {before} → {after} ({delta})",
        .listSeparator: ", ",
        .grams: "{value} g",
        .milliliters: "{value} ml",
        .fluidOunces: "{value} fl oz",
    ]
}

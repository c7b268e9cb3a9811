// es-ES: informal ("tú"), as the app speaks to its users. The changed targets follow a colon
// or a comma, so they are written in lower case.
extension CopyLocale {
    static let esESTable: CopyTable = [
        .planCreatedTitle: "Tu plan está listo",
        .planCreatedBody: "Tu plan personalizado está listo: {calories} kcal, {protein} de proteína y {water} de agua al día.",
        .toMaintenanceTitle: "Fase de mantenimiento",
        .toMaintenanceBody: "¡Hoy tus calorías suben a {calories}! 🎉",
        .toMaintenanceAtFloorBody: "Hoy empieza tu fase de mantenimiento: {calories} kcal.",
        .toDeficitTitle: "Fase de déficit",
        .toDeficitBody: "Hoy empieza tu fase de déficit: {calories} kcal.",
        .targetsUpdatedTitle: "Tu plan se ha actualizado",
        .targetsUpdatedBody: "Tus nuevos objetivos empiezan hoy: {changes}.",
        .caloriesChange: "calorías {before} → {after} ({delta})",
        .proteinChange: "proteína {before} → {after} ({delta})",
        .waterChange: "agua {before} → {after} ({delta})",
        .listSeparator: ", ",
        .grams: "{value} g",
        .milliliters: "{value} ml",
        .fluidOunces: "{value} fl oz",
    ]
}

// fr-FR: formal ("vous"), as the app speaks to its users. French typography: a no-break
// space (U+00A0) before ":", a narrow no-break space (U+202F) before "!", the typographic
// apostrophe (’). Written as escapes so a reviewer sees them. The changed targets follow a
// colon or a comma, so they are written in lower case.
extension CopyLocale {
    static let frFRTable: CopyTable = [
        .planCreatedTitle: "Votre plan est prêt",
        .planCreatedBody: "Votre plan personnalisé est prêt\u{00A0}: {calories} kcal, {protein} de protéines et {water} d\u{2019}eau par jour.",
        .toMaintenanceTitle: "Phase de maintien",
        .toMaintenanceBody: "Aujourd\u{2019}hui, vos calories remontent à {calories}\u{202F}! 🎉",
        .toMaintenanceAtFloorBody: "Votre phase de maintien commence aujourd\u{2019}hui\u{00A0}: {calories} kcal.",
        .toDeficitTitle: "Phase de déficit",
        .toDeficitBody: "Votre phase de déficit commence aujourd\u{2019}hui\u{00A0}: {calories} kcal.",
        .targetsUpdatedTitle: "Votre plan a été mis à jour",
        .targetsUpdatedBody: "Vos nouveaux objectifs s\u{2019}appliquent dès aujourd\u{2019}hui\u{00A0}: {changes}.",
        .caloriesChange: "calories {before} → {after} ({delta})",
        .proteinChange: "protéines {before} → {after} ({delta})",
        .waterChange: "eau {before} → {after} ({delta})",
        .listSeparator: ", ",
        .grams: "{value} g",
        .milliliters: "{value} ml",
        .fluidOunces: "{value} fl oz",
    ]
}

/// The version of the product's rule book this code implements (docs/plan-rules.md
/// describes what it computes). Every snapshot carries it; a different version in a
/// user's current plan makes them due (`rules_changed`).
public let rulesVersion = "2026.1"

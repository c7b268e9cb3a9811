/// The version of `shared/spec/plan-rules.md` this code implements. Every snapshot
/// carries it; a different version in a user's current plan makes them due
/// (`rules_changed`).
public let rulesVersion = "2026.1"

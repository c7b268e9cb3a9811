import PlanRules

/// What will happen to a user's plan next, for `plan-regen explain`: whether a run
/// would regenerate them now, then what the next scheduled check (pending settings
/// change, MATADOR phase switch, birthday, rules change) will do — each worked out by
/// the same `evaluate` the run uses, assuming the settings are not written again.
public struct PlanOutlook: Sendable {
    public var lines: [String]

    /// - Parameters:
    ///   - format: how numbers and dates are written (`explain --locale`).
    ///   - rollout: the binary's rules version's rollout, as the runs would use it.
    public init(row: UserSettingsRow?, state: UserPlanState?, asOf: Instant, zones: ZoneDatabase,
                format: ReadableFormat = .standard, rollout: RulesRollout = RulesRollout()) {
        guard let row else {
            lines = ["No user_settings row: nothing happens until the app writes one."]
            return
        }
        var lines: [String] = []
        let state = state ?? UserPlanState()
        let missing = ReadSettings(row: row).missingForCompleteness
        let version = RowVersion(updatedAt: row.updatedAt, state: state)
        if let written = row.updatedAt, version.isRecordedAsUnusable, !missing.isEmpty {
            // Incomplete is not an error (plan-rules.md 1.1): plan_rejections has nothing on it.
            lines.append("The settings written at \(written.rfc3339) are incomplete (\(missing.joined(separator: "; "))): "
                         + "no plan is made from them and nothing is recorded in plan_rejections; "
                         + (state.currentPlan == nil ? "the user gets a first plan" : "the plan keeps its inputs")
                         + " once the app writes the row again with onboarding completed.")
        } else if let written = row.updatedAt, version.isRecordedAsUnusable {
            lines.append("The settings written at \(written.rfc3339) were rejected (the reasons are in plan_rejections "
                         + "for this user); the plan keeps its inputs until the app writes the row again.")
        } else if let written = row.updatedAt, state.currentPlan != nil, version.isUnseen {
            lines.append("Pending settings change: the row written at \(written.rfc3339) is not applied yet; "
                         + "it takes effect at the user's first local midnight after that write.")
        }

        let now = evaluate(row: row, state: state, at: asOf, manualRerun: false, zones: zones, rollout: rollout)
        var following = (state: state, at: now.nextScheduledCheck)
        if now.outcome == .leftToNewerRules {
            lines.append("Left to a newer rules version (\(state.currentPlan?.rulesVersion ?? "?")): this binary "
                         + "(rules \(rulesVersion)) never replaces its plan; `run --rules-rollback` or `run --user` would.")
        } else if now.outcome != .notDue {
            lines.append("Due now: a run at \(asOf.rfc3339) would act on the plan for \(format.date(now.planDate)): "
                         + Self.describe(now, format, missing: missing))
            following = (now.newState, now.nextScheduledCheck)
        }
        if let at = following.at {
            let later = evaluate(row: row, state: following.state, at: at, manualRerun: false, zones: zones,
                                 rollout: rollout)
            lines.append("Next scheduled check: \(at.rfc3339) (local midnight of \(format.date(later.planDate))): "
                         + Self.describe(later, format, missing: missing))
        } else if now.outcome == .notDue {
            lines.append("Nothing is scheduled: the plan changes only when the settings are written again.")
        }
        self.lines = lines
    }

    public func render() -> String {
        (["What happens next (if the settings are not written again):"] + lines.map { "  - " + $0 })
            .joined(separator: "\n") + "\n"
    }

    /// - Parameter missing: what makes the live row incomplete (`missingForCompleteness`).
    private static func describe(_ evaluation: Evaluation, _ format: ReadableFormat, missing: [String]) -> String {
        var parts: [String] = []
        let reasons = evaluation.reasons.map(\.rawValue).joined(separator: ", ")
        if let history = evaluation.history {
            let targets = history.snapshot.targets
            let summary = PlanChangeSummary(changes: history.diff, calories: targets.calories,
                                            proteinG: targets.proteinG, waterMl: targets.waterMl, format: format)
            parts.append("\(reasons) → \(summary.event) — \(summary.details)")
            parts.append(evaluation.notification.map { "notification \($0.type.rawValue)" } ?? "no notification")
        } else if !evaluation.reasons.isEmpty {
            parts.append("\(reasons) → regenerated, nothing changes (no history row, no notification)")
        }
        if !evaluation.rejections.isEmpty {
            parts.append("the live settings are rejected: "
                         + evaluation.rejections.map { "\($0.field.rawValue): \($0.message)" }.joined(separator: "; "))
        }
        if evaluation.recordedIncomplete {
            parts.append("the live settings are incomplete (\(missing.joined(separator: "; "))): skipped, "
                         + "nothing recorded in plan_rejections")
        }
        return parts.isEmpty ? "nothing changes" : parts.joined(separator: "; ")
    }
}

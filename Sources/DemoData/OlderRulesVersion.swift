import Postgres

extension DemoUsers {
    /// Makes every user's current plan (the history row `plan_state` points at) and state
    /// look as if rules version 2025.0, an older release, wrote them: the next scheduled
    /// run with `--rules-at-once` regenerates every user, with reason rules_changed and
    /// `previous` filled (without it, each at their rollout midnight). For the tests and the
    /// benchmark's rules-change runs.
    public static func makeCurrentPlansLookOlder(in connection: PostgresConnection) throws {
        try connection.executeScript(
            """
            UPDATE plan_history h SET rules_version = '2025.0',
                   snapshot = jsonb_set(snapshot, '{rules_version}', '"2025.0"')
            FROM plan_state s
            WHERE h.user_id = s.user_id AND h.plan_date = s.plan_date AND h.seq = s.history_rows_on_plan_date - 1;
            UPDATE plan_state SET rules_version = '2025.0',
                   plan_rules_version = CASE WHEN plan_date IS NOT NULL THEN '2025.0' END;
            """, purpose: "making the current plans look as if an older rules version wrote them")
    }
}

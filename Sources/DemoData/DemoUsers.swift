import PlanRules
import PlanStore
import Postgres

/// Generates varied, deterministic `user_settings` rows for demos and benchmarks:
/// zones of every offset, all goals, genders and activity levels, ages 13–90, some
/// rows incomplete (onboarding not finished) and some invalid (an unknown zone, a
/// height out of range), so a demo run shows every outcome.
public enum DemoUsers {
    /// Zones spread over every UTC offset, the half and quarter hours and DST rules.
    public static let zones = [
        "UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Los_Angeles",
        "America/Chicago", "America/Santiago", "America/Sao_Paulo", "America/St_Johns",
        "America/Havana", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Tokyo", "Asia/Shanghai",
        "Asia/Tehran", "Australia/Sydney", "Australia/Lord_Howe", "Australia/Adelaide",
        "Pacific/Auckland", "Pacific/Chatham", "Pacific/Kiritimati", "Pacific/Pago_Pago",
        "Pacific/Honolulu", "Africa/Casablanca", "Africa/Lagos", "Europe/Dublin", "Etc/GMT+12",
        "US/Eastern", "Asia/Dubai", "America/Anchorage",
    ]

    /// `zones`, plus one zone of every other UTC offset in use (whole, half and quarter
    /// hours, −12:00 to +14:00): benchmarks, so that midnights fall at every quarter hour.
    public static let zonesOfEveryOffset = zones + [
        "Etc/GMT+11", "Etc/GMT+10", "Pacific/Marquesas", "Etc/GMT+9", "Etc/GMT+8", "Etc/GMT+7", "Etc/GMT+6",
        "Etc/GMT+5", "Etc/GMT+4", "Etc/GMT+3", "Etc/GMT+2", "Etc/GMT+1", "Etc/GMT-1", "Etc/GMT-2", "Etc/GMT-3",
        "Etc/GMT-4", "Asia/Kabul", "Etc/GMT-5", "Etc/GMT-6", "Asia/Yangon", "Etc/GMT-7", "Etc/GMT-8",
        "Australia/Eucla", "Etc/GMT-9", "Etc/GMT-10", "Etc/GMT-11", "Etc/GMT-12", "Etc/GMT-13", "Etc/GMT-14",
    ]

    /// How many rows `user_settings` has, counted up to `limit` (a quick look, not a scan
    /// of a production table): `seed-demo` refuses a table that already has users.
    public static func existingUsers(in connection: PostgresConnection, upTo limit: Int = 1000) throws -> Int {
        try connection.query(
            "SELECT count(*) FROM (SELECT FROM user_settings LIMIT \(limit)) AS existing",
            purpose: "looking for rows in user_settings"
        ).singleRow().int("count")
    }

    /// Inserts `count` users with ids `firstUserID…`, last written between 1 and 30 days
    /// before `writtenBefore`, their zones drawn from `zones`. One parameterized statement;
    /// the variety comes from `hashint8`, so the same arguments always give the same rows.
    public static func insert(count: Int, firstUserID: Int64 = 1, writtenBefore: Instant,
                              zones: [String] = zones, into connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg,
                target_weight_kg, primary_goal, target_date, activity_level, dietary_preferences,
                allergies, meals_per_day, timezone, onboarding_completed, updated_at)
            SELECT g,
                   date '1936-01-01' + (abs(hashint8(g * 31 + 1)) % 27000)::int,
                   (ARRAY['male', 'female', 'other'])[1 + abs(hashint8(g * 31 + 2)) % 3],
                   CASE WHEN g % 97 = 13 THEN 320.0
                        ELSE 150.0 + (abs(hashint8(g * 31 + 3)) % 500) / 10.0 END,
                   45.0 + (abs(hashint8(g * 31 + 4)) % 1100) / 10.0,
                   CASE WHEN g % 5 = 0 THEN NULL ELSE 50.0 + (abs(hashint8(g * 31 + 5)) % 700) / 10.0 END,
                   (ARRAY['lose_weight', 'lose_weight', 'gain_muscle', 'maintain_weight',
                          'improve_health'])[1 + abs(hashint8(g * 31 + 6)) % 5],
                   CASE WHEN g % 3 = 0 THEN NULL
                        ELSE (\(writtenBefore)::timestamptz)::date + (abs(hashint8(g * 31 + 7)) % 400)::int - 30 END,
                   (ARRAY['sedentary', 'lightly_active', 'moderately_active', 'very_active',
                          'extremely_active'])[1 + abs(hashint8(g * 31 + 8)) % 5],
                   CASE WHEN g % 4 = 0 THEN ARRAY['vegetarian', 'gluten-free'] ELSE ARRAY[]::text[] END,
                   CASE WHEN g % 6 = 0 THEN ARRAY['peanuts'] ELSE NULL END,
                   1 + abs(hashint8(g * 31 + 9)) % 6,
                   CASE WHEN g % 89 = 7 THEN 'Mars/Olympus_Mons'
                        ELSE (\(zones)::text[])[1 + abs(hashint8(g * 31 + 10)) % cardinality(\(zones)::text[])] END,
                   g % 41 <> 5,
                   \(writtenBefore)::timestamptz - make_interval(secs => 86400 + abs(hashint8(g * 31 + 11)) % (29 * 86400))
            FROM generate_series(\(firstUserID)::bigint, \(firstUserID)::bigint + \(count) - 1) AS g
            """, purpose: "inserting \(count) demo users")
        try setPresentation(firstUserID: firstUserID, count: count, into: connection)
    }

    /// Where the table has section 7.1's optional columns: half the users get a locale
    /// (each supported one, plus de-AT and en-GB for the fallbacks), and of those some an
    /// explicit unit system (both, and a value that is neither). The other half keep
    /// today's English lines.
    static func setPresentation(firstUserID: Int64, count: Int, into connection: PostgresConnection) throws {
        let columns = try connection.query(
            """
            SELECT count(*) FROM pg_attribute WHERE attrelid = 'user_settings'::regclass
              AND attname IN ('locale', 'unit_system') AND NOT attisdropped
            """, purpose: "looking for the locale and unit_system columns").singleRow().int("count")
        guard columns == 2 else { return }
        try connection.execute(
            """
            UPDATE user_settings SET
                locale = (ARRAY['de-DE', 'es-ES', 'fr-FR', 'en-US', 'de_at', 'en-GB'])[1 + user_id % 12],
                unit_system = CASE WHEN user_id % 211 = 7 THEN 'stones'
                                   ELSE (ARRAY[NULL, 'metric', 'imperial', 'Imperial'])[1 + (user_id / 12) % 4] END
            WHERE user_id BETWEEN \(firstUserID)::bigint AND \(firstUserID)::bigint + \(count) - 1 AND user_id % 12 < 6
            """, purpose: "giving demo users locales and unit systems")
    }
}

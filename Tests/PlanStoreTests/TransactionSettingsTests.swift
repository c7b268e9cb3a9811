import PlanStore
import Postgres
import TestSupport
import Testing

/// What every transaction of the store sets, whatever the server's, database's or role's
/// defaults (`PlanStore.Timeouts.transactionSettings`).
@Suite struct TransactionSettingsTests {
    /// No JIT compilation: with a few dozen monthly partitions of `plan_history` a batch's
    /// read of users with a plan is estimated above `jit_above_cost`, and compiling it took
    /// about 0.9 s for a read of 16 ms. Here a tiny query is made to qualify for JIT
    /// (`jit_above_cost = 0`): a plain connection compiles it, the store's does not.
    @Test func theStoresTransactionsRunInUTCWithISODatesAndWithoutJIT() throws {
        try TestDatabase.withFresh { database in
            let plain = try database.connect()
            let jitAvailable = try plain.query("SELECT pg_jit_available() AS available", purpose: "test: JIT support")
                .singleRow().bool("available")
            try #require(jitAvailable, "this PostgreSQL cannot JIT-compile (no llvmjit): the control below needs it")
            let explain: SQLQuery = "EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(i) FROM generate_series(1, 1000) AS i"
            let qualifying: SQLQuery = """
                SELECT set_config('jit_above_cost', '0', true), set_config('jit_inline_above_cost', '-1', true),
                       set_config('jit_optimize_above_cost', '-1', true)
                """
            try plain.execute("ALTER DATABASE \(identifier: database.name) SET TimeZone = 'Pacific/Chatham'",
                              purpose: "test: an unusual time zone as the database's default")

            let controlPlan = try plain.withTransaction { connection in
                try connection.execute(qualifying, purpose: "test: making the query qualify for JIT")
                return try connection.query(explain, purpose: "test: explaining").singleRow().string(0)
            }
            #expect(controlPlan.contains("\"JIT\""), "the control query was not JIT-compiled: \(controlPlan)")

            let connection = try database.connect()
            _ = PlanStore(connection: connection)
            let (plan, zone, dateStyle) = try connection.withTransaction { connection in
                try connection.execute(qualifying, purpose: "test: making the query qualify for JIT")
                let plan = try connection.query(explain, purpose: "test: explaining").singleRow().string(0)
                let settings = try connection.query(
                    "SELECT current_setting('TimeZone') AS zone, current_setting('DateStyle') AS style",
                    purpose: "test: reading the settings").singleRow()
                return (plan, try settings.string("zone"), try settings.string("style"))
            }
            #expect(!plan.contains("\"JIT\""), "the store's transaction JIT-compiled: \(plan)")
            #expect(zone == "UTC")
            #expect(dateStyle == "ISO, YMD")
        }
    }
}

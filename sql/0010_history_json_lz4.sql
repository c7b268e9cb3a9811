-- migration: expand
-- plan_history's JSON columns are compressed with lz4 instead of pglz.
--
-- A row that carries a previous plan (every row after a user's first) is about 2.3 kB,
-- above the 2 kB at which PostgreSQL compresses a row's large values and then moves what
-- is still too long to the TOAST table. jsonb compresses poorly with pglz (most attempts
-- fell short of its 25% minimum), so such rows paid pglz and then the TOAST table too: in
-- a rules-change run at 1M users (every user rewritten) pglz was 16% and the move to TOAST
-- 7% of all CPU on the machine, job and server. lz4 costs a fraction of pglz and brings
-- nearly every such row under 2 kB (about 1.98 kB), so it stays in the table's own page:
-- the run took 29.9 s instead of 35.0 s, and its TOAST table held 173 MB instead of 888
-- MB (README "Scale"). A first plan (about 1.2 kB) is not compressed either way.
--
-- Only values written from now on are compressed with lz4; older ones stay readable as
-- they are. New month partitions take the setting from plan_history. A server built
-- without lz4 keeps pglz (the notice says so): slower, but nothing else changes.
DO $$
DECLARE
    history regclass;
BEGIN
    FOR history IN SELECT relid FROM pg_partition_tree('plan_history') LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN snapshot SET COMPRESSION lz4, '
                       'ALTER COLUMN previous SET COMPRESSION lz4, ALTER COLUMN diff SET COMPRESSION lz4',
                       history);
    END LOOP;
EXCEPTION
    WHEN feature_not_supported THEN
        RAISE NOTICE 'this PostgreSQL server has no lz4 support; plan_history keeps pglz: %', SQLERRM;
END
$$;

-- A new partition of the ledger is made over one connection per node. On a Citus cluster the
-- partition's foreign key to `campaigns` (a reference table) must be, once the transaction has
-- read `campaigns` (as a campaign's insert has: `cannot execute parallel DDL on table
-- "deliveries" after DDL command on reference table "campaigns"`, docs/scaling.md). Plain
-- PostgreSQL keeps the setting as an unused placeholder for the rest of the transaction.
CREATE OR REPLACE FUNCTION herald_ledger_add_block(first bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    saved text := current_setting('lock_timeout');
BEGIN
    IF EXISTS (SELECT 1 FROM herald_ledger_blocks() b WHERE b.first_id = first) THEN
        RETURN true;
    END IF;
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    PERFORM set_config('lock_timeout', '5s', true);
    BEGIN
        EXECUTE format('CREATE TABLE %I PARTITION OF deliveries FOR VALUES FROM (%s) TO (%s)',
                       'deliveries_' || first, first, first + 1000000);
    EXCEPTION WHEN lock_not_available OR check_violation OR invalid_object_definition OR duplicate_table THEN
        -- Busy, or the range is taken (rows of it in the default partition): the campaigns
        -- stay in the block they are in; the next try may succeed.
        PERFORM set_config('lock_timeout', saved, true);
        RETURN false;
    END;
    PERFORM set_config('lock_timeout', saved, true);
    RETURN true;
END
$$;

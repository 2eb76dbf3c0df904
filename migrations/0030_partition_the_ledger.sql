-- The delivery ledger is partitioned by time (docs/scaling.md, "The ledger by month"), so that
-- retention drops a month of it whole instead of deleting its rows one batch at a time.
--
-- The partition key is the campaign's ID, and campaign IDs follow the calendar: IDs come in
-- blocks of a million, each block one partition, and the first campaign created in a new month
-- starts a new block (herald_roll_ledger, called before every campaign insert). So a campaign's
-- rows all lie in one partition, every read of a campaign's ledger (which names its campaign)
-- touches one partition, the unique key needs no new column, and a partition holds the
-- campaigns created in one month. A DEFAULT partition catches a campaign whose block is gone
-- (a draft of a month already dropped, sent later): nothing ever fails to be recorded.
--
-- An existing ledger becomes the first partition as it is (renamed and attached; its indexes
-- and keys are adopted, not rebuilt; attaching reads it once to check the range).

ALTER TABLE deliveries RENAME TO deliveries_0;
ALTER TABLE deliveries_0 RENAME CONSTRAINT deliveries_campaign_id_fkey TO deliveries_0_campaign_id_fkey;
ALTER INDEX deliveries_pkey RENAME TO deliveries_0_pkey;
ALTER INDEX deliveries_ledger_idx RENAME TO deliveries_0_ledger_idx;
ALTER INDEX deliveries_retry_idx RENAME TO deliveries_0_retry_idx;
ALTER INDEX deliveries_apns_id_hash_idx RENAME TO deliveries_0_apns_id_hash_idx;
ALTER INDEX deliveries_device_accepted_idx RENAME TO deliveries_0_device_accepted_idx;

-- The same columns, defaults, NOT NULLs and checks (with their names, which attaching matches).
CREATE TABLE deliveries (LIKE deliveries_0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (campaign_id);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (app_id, campaign_id, device_id);
CREATE INDEX deliveries_ledger_idx ON deliveries (campaign_id, outcome, reason, device_id);
CREATE INDEX deliveries_retry_idx ON deliveries (app_id, campaign_id, retry_at) WHERE retry_at IS NOT NULL;
CREATE INDEX deliveries_apns_id_hash_idx ON deliveries USING hash (apns_id) WHERE apns_id IS NOT NULL;
CREATE INDEX deliveries_device_accepted_idx ON deliveries (app_id, device_id, created_at) WHERE outcome = 'accepted';
ALTER TABLE deliveries ADD CONSTRAINT deliveries_campaign_id_fkey
    FOREIGN KEY (campaign_id) REFERENCES campaigns (id) ON DELETE CASCADE;

-- The ledger's partitions and the campaign IDs each holds: first_id NULL is "from the start".
-- Read from the catalog, so it cannot disagree with it.
CREATE FUNCTION herald_ledger_blocks() RETURNS TABLE (name text, first_id bigint, end_id bigint)
LANGUAGE sql STABLE AS $$
    SELECT c.relname::text,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''?(-?[0-9]+)'))[1]::bigint,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?[0-9]+)'))[1]::bigint
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'deliveries'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
    ORDER BY 3
$$;

-- Creates the partition for the block starting at `first` unless it exists. Waits at most 5 s
-- for the ledger's lock (creating a partition takes it briefly); false when it could not. The
-- partition is made over one connection per node: on a Citus cluster its foreign key to
-- `campaigns` (a reference table) must be, once the transaction has read `campaigns` (`cannot
-- execute parallel DDL on table "deliveries" after DDL command on reference table`,
-- docs/scaling.md); plain PostgreSQL keeps the setting as an unused placeholder.
CREATE FUNCTION herald_ledger_add_block(first bigint) RETURNS boolean LANGUAGE plpgsql AS $$
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

-- Called in a campaign's insert transaction, before the insert: when the newest campaign was
-- created in an earlier month (UTC), the next ID jumps to the next block, whose partition is
-- created if missing. Creators that must roll take turns (a transaction advisory lock) and
-- look again once they hold it; the others pass without waiting.
CREATE FUNCTION herald_roll_ledger() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    newest record;
    next bigint;
    sequence regclass := pg_get_serial_sequence('campaigns', 'id')::regclass;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT id, created_at INTO newest FROM campaigns ORDER BY id DESC LIMIT 1;
        IF NOT FOUND OR date_trunc('month', newest.created_at AT TIME ZONE 'UTC')
                        >= date_trunc('month', now() AT TIME ZONE 'UTC') THEN
            RETURN;
        END IF;
        IF attempt = 1 THEN
            PERFORM pg_advisory_xact_lock(7522525283453560930);  -- "herald lb"
        END IF;
    END LOOP;
    next := (newest.id / 1000000 + 1) * 1000000;
    IF coalesce(pg_sequence_last_value(sequence), 0) >= next - 1 THEN
        RETURN;
    END IF;
    IF herald_ledger_add_block(next) THEN
        PERFORM setval(sequence, next - 1);
    END IF;
END
$$;

DO $$
DECLARE
    first bigint := (coalesce((SELECT max(id) FROM campaigns), 0) / 1000000 + 1) * 1000000;
BEGIN
    EXECUTE format('ALTER TABLE deliveries ATTACH PARTITION deliveries_0 FOR VALUES FROM (MINVALUE) TO (%s)', first);
    PERFORM herald_ledger_add_block(first);
END
$$;

CREATE TABLE deliveries_default PARTITION OF deliveries DEFAULT;

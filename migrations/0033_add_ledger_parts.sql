-- Each ledger row carries its device's part, and the ledger's key holds it: on a Citus cluster
-- the ledger is distributed by part beside `devices` (docs/scaling.md, "Which table goes
-- where"), so a batch's rows go to its devices' shards, a campaign's ledger spreads over every
-- worker, and the joins between the ledger and `devices` (deferred retries, the ledger page)
-- name the part and run inside one shard. On one PostgreSQL the key's index grows by four
-- bytes a row and nothing else changes: a device has one part, so (campaign, device) stays
-- unique as before.
--
-- The engine writes the part with each row (from the device's bucket). Existing rows learn it
-- from their device in one rewrite of the ledger (a type change with USING, as migration 0029
-- did for devices); a row whose device was pruned since is history only and takes part 0's
-- label. The function is needed only for the rewrite: USING takes no subquery.
CREATE FUNCTION herald_device_part(app bigint, device bigint) RETURNS integer LANGUAGE sql STABLE
AS $$ SELECT coalesce((SELECT part FROM devices WHERE app_id = app AND id = device), herald_part(0)) $$;

ALTER TABLE deliveries ADD COLUMN part integer;
ALTER TABLE deliveries ALTER COLUMN part SET DATA TYPE integer USING herald_device_part(app_id, device_id);
ALTER TABLE deliveries ALTER COLUMN part SET NOT NULL;
DROP FUNCTION herald_device_part(bigint, bigint);

ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (app_id, campaign_id, device_id, part);

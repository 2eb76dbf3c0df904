-- Opens are attributed to their campaign by apns-id, with equality only
-- (`apns_id = ANY($ids)`). The B-tree on (app_id, apns_id) took a random leaf page for every
-- ledger row a campaign writes, since apns-ids are UUIDs: about 10 µs of PostgreSQL CPU per device,
-- a quarter of PostgreSQL's work in a campaign (BENCHMARKS.md, "The ledger's apns-id index").
-- A hash index answers the same lookups (a bitmap scan for the array) and costs about nothing
-- to insert into. Hash indexes take one column; the app is checked on the rows found.
CREATE INDEX deliveries_apns_id_hash_idx ON deliveries USING hash (apns_id) WHERE apns_id IS NOT NULL;
DROP INDEX deliveries_apns_id_idx;

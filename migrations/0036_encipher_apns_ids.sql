-- A campaign's apns-ids name their campaign and device, enciphered under the app's key
-- (docs/campaigns.md, "Apns-ids"), so an `opened` event is attributed by deciphering its
-- apns-id and reading the ledger row by its key. The ledger's hash index on apns-ids, a
-- random page for every row a campaign writes (BENCHMARKS.md, "Apns-ids that name their
-- campaign"), is then needed only for the apns-ids sent before: version 5 UUIDs.
--
-- * `apps.apns_id_key`: the app's 16-byte key, made by Herald (the system's random generator)
--   when the app's first campaign after this migration is created. Not a credential: it keeps
--   ids unguessable and says nothing without it; it is never returned.
-- * `campaigns.apns_id_key`: the key the campaign's ids are made with, copied from its app when
--   the campaign is created. NULL for a campaign created before this migration: it keeps its
--   UUIDv5 ids, so one that is running now resends with the ids it sent.
-- * The hash index leaves out version 8 UUIDs (the 15th character of the text form is the
--   version). Rebuilding it reads the ledger once.
ALTER TABLE apps ADD COLUMN apns_id_key bytea CHECK (octet_length(apns_id_key) = 16);
ALTER TABLE campaigns ADD COLUMN apns_id_key bytea CHECK (octet_length(apns_id_key) = 16);

DROP INDEX deliveries_apns_id_hash_idx;
CREATE INDEX deliveries_apns_id_hash_idx ON deliveries USING hash (apns_id)
    WHERE apns_id IS NOT NULL AND substr(apns_id::text, 15, 1) <> '8';

-- A campaign's apns-ids name their campaign and device, enciphered under the app's key
-- (docs/campaigns.md, "Apns-ids"), so an `opened` event is attributed by deciphering its
-- apns-id and reading the ledger row by its key. The ledger's hash index on apns-ids, a
-- random page for every row a campaign writes (BENCHMARKS.md, "Apns-ids that name their
-- campaign"), is then needed only for the apns-ids sent before: version 5 UUIDs.
--
-- * `apps.apns_id_key`: the app's 16-byte key. Herald makes it when it adds an app (the
--   system's random generator); an app that exists now gets one here, from PostgreSQL's strong
--   random generator (gen_random_uuid), one UPDATE per app with the key as a literal, so that a
--   Citus cluster writes the same key on every node. Not a credential: it keeps ids
--   unguessable and says nothing without it; it is never returned.
-- * `campaigns.apns_id_key`: the key the campaign's ids are made with, copied from its app when
--   the campaign is created. NULL for a campaign created before this migration (or for an app
--   without a key): it keeps UUIDv5 ids, so one that is running now resends with the ids it
--   sent.
-- * The hash index leaves out version 8 UUIDs (the 15th character of the text form is the
--   version). Rebuilding it reads the ledger once.
--
-- Each column and its check are two statements: a Citus cluster refuses ADD COLUMN with a
-- constraint on a reference table.
ALTER TABLE apps ADD COLUMN apns_id_key bytea;
ALTER TABLE apps ADD CONSTRAINT apps_apns_id_key_check CHECK (octet_length(apns_id_key) = 16);
ALTER TABLE campaigns ADD COLUMN apns_id_key bytea;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_apns_id_key_check CHECK (octet_length(apns_id_key) = 16);

DO $$
DECLARE
    app record;
BEGIN
    FOR app IN SELECT id FROM apps WHERE apns_id_key IS NULL ORDER BY id LOOP
        EXECUTE format('UPDATE apps SET apns_id_key = %L::bytea WHERE id = %s',
                       substring(sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())) FROM 1 FOR 16),
                       app.id);
    END LOOP;
END
$$;

DROP INDEX deliveries_apns_id_hash_idx;
CREATE INDEX deliveries_apns_id_hash_idx ON deliveries USING hash (apns_id)
    WHERE apns_id IS NOT NULL AND substr(apns_id::text, 15, 1) <> '8';

-- A device is keyed by (app_id, id, part), and the three Live Activity tables that belong to a
-- device carry its part, point at it by all three columns and hold the part in their own keys.
--
-- On one PostgreSQL this changes nothing a query sees: IDs stay unique on their own, and every
-- lookup by (app_id, id) still seeks the key's index. On a Citus cluster it is what lets these
-- tables be distributed by part beside `devices` (docs/scaling.md, "Which table goes where"): a
-- distributed table's primary and unique keys must hold its distribution column, and a foreign
-- key between two distributed tables must name it on both sides. Joins between them then name
-- the part too, so each runs inside one shard.

-- Each table learns its devices' parts before the keys change. These tables are small beside
-- `devices` (a token per device and Live Activity type or activity), so an UPDATE is enough.
ALTER TABLE live_activity_start_tokens ADD COLUMN part integer;
UPDATE live_activity_start_tokens s SET part = d.part FROM devices d WHERE d.app_id = s.app_id AND d.id = s.device_id;
ALTER TABLE live_activity_start_tokens ALTER COLUMN part SET NOT NULL;

ALTER TABLE live_activity_tokens ADD COLUMN part integer;
UPDATE live_activity_tokens t SET part = d.part FROM devices d WHERE d.app_id = t.app_id AND d.id = t.device_id;
ALTER TABLE live_activity_tokens ALTER COLUMN part SET NOT NULL;

ALTER TABLE live_activity_starts ADD COLUMN part integer;
UPDATE live_activity_starts s SET part = d.part FROM devices d WHERE d.app_id = s.app_id AND d.id = s.device_id;
ALTER TABLE live_activity_starts ALTER COLUMN part SET NOT NULL;

ALTER TABLE live_activity_start_tokens DROP CONSTRAINT live_activity_start_tokens_app_id_device_id_fkey;
ALTER TABLE live_activity_tokens DROP CONSTRAINT live_activity_tokens_app_id_device_id_fkey;
ALTER TABLE live_activity_starts DROP CONSTRAINT live_activity_starts_app_id_device_id_fkey;

-- Rebuilds the key's index once (about a second per million devices here; registrations wait).
ALTER TABLE devices DROP CONSTRAINT devices_pkey, ADD CONSTRAINT devices_pkey PRIMARY KEY (app_id, id, part);

ALTER TABLE live_activity_start_tokens
    DROP CONSTRAINT live_activity_start_tokens_pkey,
    ADD CONSTRAINT live_activity_start_tokens_pkey PRIMARY KEY (app_id, device_id, attributes_type, part),
    ADD CONSTRAINT live_activity_start_tokens_device_fkey
        FOREIGN KEY (app_id, device_id, part) REFERENCES devices (app_id, id, part) ON DELETE CASCADE;

ALTER TABLE live_activity_starts
    DROP CONSTRAINT live_activity_starts_pkey,
    ADD CONSTRAINT live_activity_starts_pkey PRIMARY KEY (app_id, device_id, attributes_type, part),
    ADD CONSTRAINT live_activity_starts_device_fkey
        FOREIGN KEY (app_id, device_id, part) REFERENCES devices (app_id, id, part) ON DELETE CASCADE;

-- An update token's ID stays unique on its own (an identity); the key names the part beside it.
ALTER TABLE live_activity_tokens
    DROP CONSTRAINT live_activity_tokens_pkey,
    ADD CONSTRAINT live_activity_tokens_pkey PRIMARY KEY (id, part),
    DROP CONSTRAINT live_activity_tokens_app_id_activity_id_device_id_key,
    ADD CONSTRAINT live_activity_tokens_app_id_activity_id_device_id_part_key UNIQUE (app_id, activity_id, device_id, part),
    ADD CONSTRAINT live_activity_tokens_device_fkey
        FOREIGN KEY (app_id, device_id, part) REFERENCES devices (app_id, id, part) ON DELETE CASCADE;

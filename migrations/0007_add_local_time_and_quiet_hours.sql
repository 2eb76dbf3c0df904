-- Local-time delivery and quiet hours (docs/campaigns.md, "Time zones").

-- The zone of devices that registered none, and the app's quiet hours in minutes after
-- midnight (the window may cross midnight; its ends differ).
ALTER TABLE apps
    ADD COLUMN default_time_zone text,
    ADD COLUMN quiet_hours_start smallint CHECK (quiet_hours_start BETWEEN 0 AND 1439),
    ADD COLUMN quiet_hours_end smallint CHECK (quiet_hours_end BETWEEN 0 AND 1439),
    ADD CONSTRAINT apps_quiet_hours_check CHECK ((quiet_hours_start IS NULL) = (quiet_hours_end IS NULL)
                                                 AND (quiet_hours_start IS NULL OR quiet_hours_start <> quiet_hours_end));

-- A local-time campaign's wall-clock moment ({"date", "time", "latePolicy"}), what it does
-- about quiet hours, the app's quiet hours frozen when it starts, and when it was scheduled
-- (a zone whose moment had passed then is late).
ALTER TABLE campaigns
    ADD COLUMN local_delivery jsonb CHECK (local_delivery IS NULL OR jsonb_typeof(local_delivery) = 'object'),
    ADD COLUMN quiet_hours_mode text NOT NULL DEFAULT 'hold' CHECK (quiet_hours_mode IN ('hold', 'skip', 'ignore')),
    ADD COLUMN quiet_hours_start smallint,
    ADD COLUMN quiet_hours_end smallint,
    ADD COLUMN scheduled_at timestamptz,
    ADD CONSTRAINT campaigns_local_delivery_start_check CHECK (local_delivery IS NULL OR send_at IS NOT NULL
                                                         OR state IN ('draft', 'cancelled'));

-- A campaign sent in zones has one or more chunks per time zone: `device_zone` is the devices'
-- registered zone ('' for none), `time_zone` the zone their clock is read in, `not_before` when
-- the chunk may be claimed (its local moment, or the end of its quiet hours), `size` its devices
-- when the campaign started, `skip_reason` set when its devices are recorded skipped unsent.
ALTER TABLE campaign_chunks
    ADD COLUMN device_zone text,
    ADD COLUMN time_zone text,
    ADD COLUMN not_before timestamptz,
    ADD COLUMN size bigint,
    ADD COLUMN skip_reason text,
    ADD CONSTRAINT campaign_chunks_zone_check CHECK ((device_zone IS NULL) = (time_zone IS NULL));

-- A zone's chunk reads its devices in ID order: equality on the zone, then the same keyset and
-- bucket test as migration 0005's index.
CREATE INDEX devices_app_zone_id_bucket_idx ON devices (app_id, (coalesce(time_zone, '')), id, bucket)
    WHERE invalidated_at IS NULL;

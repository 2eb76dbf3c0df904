-- Live Activities (docs/live-activities.md): push-to-start tokens per device and attributes
-- type, activities under the caller's own ID with the update tokens their devices sent, the
-- updates queued for them, and each update's ledger.

-- How many priority-10 updates one activity may get per hour (docs/live-activities.md "Budget").
ALTER TABLE apps ADD COLUMN live_activity_high_priority_per_hour integer NOT NULL DEFAULT 12
    CHECK (live_activity_high_priority_per_hour BETWEEN 0 AND 3600);

-- One push-to-start token per device and ActivityAttributes type; it goes with its device.
CREATE TABLE live_activity_start_tokens (
    app_id               bigint NOT NULL,
    device_id            bigint NOT NULL,
    attributes_type      text NOT NULL CHECK (octet_length(attributes_type) BETWEEN 1 AND 128),
    token                bytea NOT NULL CHECK (octet_length(token) BETWEEN 4 AND 100),
    registered_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, device_id, attributes_type),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);
-- A start campaign's audience: the app's devices holding a token of one type.
CREATE INDEX live_activity_start_tokens_type_idx ON live_activity_start_tokens (app_id, attributes_type, device_id);

CREATE TABLE live_activities (
    app_id          bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    activity_id     text NOT NULL CHECK (octet_length(activity_id) BETWEEN 1 AND 256),
    attributes_type text,
    state           text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'ended')),
    -- The aps.timestamp of the latest update: the next one is greater.
    last_timestamp  bigint NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_update_at  timestamptz,
    ended_at        timestamptz,
    -- When an ended activity's tokens go.
    dismiss_at      timestamptz,
    PRIMARY KEY (app_id, activity_id)
);
CREATE INDEX live_activities_recent_idx ON live_activities (app_id, created_at DESC, activity_id);

-- One update token per activity and device: a new one replaces it.
CREATE TABLE live_activity_tokens (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id        bigint NOT NULL,
    activity_id   text NOT NULL,
    device_id     bigint NOT NULL,
    token         bytea NOT NULL CHECK (octet_length(token) BETWEEN 4 AND 100),
    registered_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app_id, activity_id) REFERENCES live_activities (app_id, activity_id) ON DELETE CASCADE,
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE,
    UNIQUE (app_id, activity_id, device_id)
);
-- A fan-out reads an activity's tokens by ID (keyset); deleting a device finds its tokens.
CREATE INDEX live_activity_tokens_fanout_idx ON live_activity_tokens (app_id, activity_id, id);
CREATE INDEX live_activity_tokens_device_idx ON live_activity_tokens (app_id, device_id);
CREATE INDEX live_activity_tokens_age_idx ON live_activity_tokens (registered_at);

CREATE TABLE live_activity_updates (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id            bigint NOT NULL,
    activity_id       text NOT NULL,
    event             text NOT NULL CHECK (event IN ('update', 'end')),
    -- The request as given: contentState, alert, dates, relevance score, requested priority.
    request           jsonb NOT NULL,
    aps_timestamp     bigint NOT NULL,
    priority          smallint NOT NULL CHECK (priority IN (5, 10)),
    priority_lowered  boolean NOT NULL DEFAULT false,
    -- Counts against the activity's hourly allowance of priority 10.
    high_priority     boolean NOT NULL DEFAULT false,
    idempotency_key   text,
    actor             text NOT NULL,
    state             text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sending', 'sent', 'superseded')),
    cursor            bigint NOT NULL DEFAULT 0,
    lease_owner       text,
    lease_token       bigint NOT NULL DEFAULT 0,
    lease_expires_at  timestamptz,
    accepted          integer NOT NULL DEFAULT 0,
    failed            integer NOT NULL DEFAULT 0,
    dropped           integer NOT NULL DEFAULT 0,
    superseded        integer NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    FOREIGN KEY (app_id, activity_id) REFERENCES live_activities (app_id, activity_id) ON DELETE CASCADE,
    UNIQUE (app_id, idempotency_key)
);
-- Claims look only at unfinished updates; an activity's history and allowance read by activity.
CREATE INDEX live_activity_updates_pending_idx ON live_activity_updates (id) WHERE state IN ('queued', 'sending');
CREATE INDEX live_activity_updates_activity_idx ON live_activity_updates (app_id, activity_id, id);

-- One row per update and token: the update's ledger. No foreign key to the token, which a
-- 410 drops while its row stays.
CREATE TABLE live_activity_deliveries (
    update_id   bigint NOT NULL REFERENCES live_activity_updates (id) ON DELETE CASCADE,
    token_id    bigint NOT NULL,
    device_id   bigint,
    token       bytea NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('accepted', 'failed', 'skipped', 'deferred', 'unsent')),
    status      integer,
    reason      text,
    apns_id     uuid,
    language    text,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (update_id, token_id)
);

-- The activity a start campaign started on a device, per attributes type (the latest start):
-- the update token the device then sends for that type joins this activity.
CREATE TABLE live_activity_starts (
    app_id          bigint NOT NULL,
    device_id       bigint NOT NULL,
    attributes_type text NOT NULL,
    activity_id     text NOT NULL,
    campaign_id     bigint,
    started_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, device_id, attributes_type),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);

-- iOS 18 broadcast channels (docs/live-activities.md "Broadcast channels"): created through
-- APNs's channel management API, one environment each, optionally bound to an activity whose
-- updates then go as one broadcast per channel. APNs gives the ID; Herald keeps what it made.
ALTER TABLE apps ADD COLUMN apns_management_endpoint text;

CREATE TABLE broadcast_channels (
    app_id          bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel_id      text NOT NULL CHECK (octet_length(channel_id) BETWEEN 4 AND 256),
    environment     text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    storage_policy  smallint NOT NULL CHECK (storage_policy IN (0, 1)),
    activity_id     text,
    -- deleted: through Herald; gone: APNs answered ChannelNotRegistered.
    state           text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'deleted', 'gone')),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    ended_at        timestamptz,
    last_broadcast_at timestamptz,
    broadcasts      integer NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, channel_id),
    FOREIGN KEY (app_id, activity_id) REFERENCES live_activities (app_id, activity_id) ON DELETE SET NULL (activity_id)
);
-- One live channel per activity and environment.
CREATE UNIQUE INDEX broadcast_channels_activity_idx ON broadcast_channels (app_id, activity_id, environment)
    WHERE state = 'active' AND activity_id IS NOT NULL;
CREATE INDEX broadcast_channels_recent_idx ON broadcast_channels (app_id, created_at DESC, channel_id);

-- One row per update and channel: what APNs answered the broadcast. A claim that finds its row
-- does not broadcast again.
CREATE TABLE live_activity_broadcasts (
    update_id   bigint NOT NULL REFERENCES live_activity_updates (id) ON DELETE CASCADE,
    channel_id  text NOT NULL,
    environment text NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('accepted', 'failed')),
    status      integer,
    reason      text,
    request_id  uuid,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (update_id, channel_id)
);

-- One provider token per team and signing key, shared by every instance (docs/apns.md
-- "Provider tokens"): an instance takes the row FOR UPDATE and signs a new token only when the
-- stored one is due, so APNs sees one token per team, not one per instance. Sealed like the
-- credentials under HERALD_SECRET_KEY.
CREATE TABLE provider_tokens (
    team_id     text NOT NULL,
    key_id      text NOT NULL,
    token       bytea,
    issued_at   timestamptz,
    PRIMARY KEY (team_id, key_id)
);

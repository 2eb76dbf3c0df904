-- Campaigns, their units of work (chunks over device buckets) and the delivery ledger.
-- Citus: campaigns is small and read by every instance, so it would be a reference table like
-- apps and templates. campaign_chunks, deliveries and test_deliveries lead their keys with
-- app_id so they can be distributed by app and colocated with devices: a batch's writes and
-- the ledger's joins with devices then stay on one shard.

CREATE TABLE campaigns (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id            bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- What URLs show, and the UUIDv5 namespace of every apns-id the campaign sends.
    public_id         uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    notes             text,
    state             text NOT NULL DEFAULT 'draft'
                      CHECK (state IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled', 'failed')),
    -- No foreign key: a draft may name a template that is synced later; scheduling pins the
    -- latest version of the template then, and a version is never deleted.
    template_name     text NOT NULL,
    template_version  integer CHECK (template_version >= 1),
    localization_mode text NOT NULL DEFAULT 'server' CHECK (localization_mode IN ('server', 'client')),
    -- Send-time variables, the audience filter and the push options, as HeraldCore encodes them.
    variables         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(variables) = 'object'),
    audience          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(audience) = 'object'),
    push_options      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(push_options) = 'object'),
    -- NULL: as soon as it is scheduled.
    send_at           timestamptz,
    -- Notifications per second; NULL: as fast as APNs takes them.
    rate_limit        integer CHECK (rate_limit > 0),
    -- Frozen when the campaign starts: the highest device ID then (devices registered later
    -- are not in the audience) and how many devices matched up to it.
    audience_bound    bigint,
    audience_size     bigint NOT NULL DEFAULT 0 CHECK (audience_size >= 0),
    failure_reason    text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz,
    -- Every campaign past the draft renders one pinned version (a draft may be cancelled).
    CHECK (state IN ('draft', 'cancelled') OR template_version IS NOT NULL),
    CHECK ((state = 'failed') = (failure_reason IS NOT NULL))
);
-- The scheduler's scan for due campaigns.
CREATE INDEX campaigns_state_send_at_idx ON campaigns (state, send_at);
-- Listing an app's campaigns newest first.
CREATE INDEX campaigns_app_id_idx ON campaigns (app_id, id);

-- Units of work: a campaign's devices split by bucket range. A worker claims a chunk under a
-- lease; lease_token grows on every claim and every write checks it, so a worker whose lease
-- was taken over writes nothing. Outcome counters live here, not on campaigns: each batch
-- updates only its own chunk's row, so concurrent workers never queue on one hot row.
CREATE TABLE campaign_chunks (
    app_id           bigint NOT NULL,
    campaign_id      bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    chunk            integer NOT NULL CHECK (chunk >= 0),
    -- Inclusive range over devices.bucket (0 to 255).
    bucket_from      integer NOT NULL CHECK (bucket_from BETWEEN 0 AND 255),
    bucket_to        integer NOT NULL CHECK (bucket_to BETWEEN bucket_from AND 255),
    -- The last device ID whose outcome is stored; advanced in the batch's transaction.
    cursor           bigint NOT NULL DEFAULT 0,
    -- How far the batch being sent goes (DESIGN.md rule 2): after a crash, only devices in
    -- (cursor, in_flight_to] can have been sent without a stored outcome.
    in_flight_to     bigint,
    state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
    lease_owner      text,
    lease_token      bigint NOT NULL DEFAULT 0,
    lease_expires_at timestamptz,
    accepted         bigint NOT NULL DEFAULT 0,
    failed           bigint NOT NULL DEFAULT 0,
    skipped          bigint NOT NULL DEFAULT 0,
    deferred         bigint NOT NULL DEFAULT 0,
    unsent           bigint NOT NULL DEFAULT 0,
    -- Devices this chunk's answers invalidated (a subset of failed).
    invalidated      bigint NOT NULL DEFAULT 0,
    -- {"BadDeviceToken": 3, …}: sums to failed.
    failed_by_reason jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(failed_by_reason) = 'object'),
    finished_at      timestamptz,
    PRIMARY KEY (app_id, campaign_id, chunk)
);
-- Claiming: only pending chunks are ever scanned.
CREATE INDEX campaign_chunks_pending_idx ON campaign_chunks (campaign_id, chunk) WHERE state = 'pending';

-- The ledger: one row per (campaign, device), written in batches with ON CONFLICT DO NOTHING,
-- so a batch recorded twice counts once. No foreign key to devices: pruning a device keeps
-- the record that it was sent to.
CREATE TABLE deliveries (
    app_id      bigint NOT NULL,
    campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    device_id   bigint NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('accepted', 'failed', 'skipped', 'deferred', 'unsent')),
    -- APNs's HTTP status, when APNs answered.
    status      integer,
    -- APNs's reason, or why Herald skipped or failed the device itself.
    reason      text,
    apns_id     uuid,
    -- The language the payload was rendered in.
    language    text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, campaign_id, device_id)
);
-- The ledger filtered by outcome and reason, paged by device ID.
CREATE INDEX deliveries_ledger_idx ON deliveries (campaign_id, outcome, reason, device_id);

-- `POST /v1/campaigns/{id}/test` sends: to listed tokens (registered or not), kept apart so
-- they never count in the campaign's counters or ledger.
CREATE TABLE test_deliveries (
    app_id      bigint NOT NULL,
    campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    token       bytea NOT NULL CHECK (octet_length(token) BETWEEN 4 AND 100),
    device_id   bigint,
    outcome     text NOT NULL CHECK (outcome IN ('accepted', 'failed', 'skipped', 'deferred', 'unsent')),
    status      integer,
    reason      text,
    apns_id     uuid,
    language    text,
    actor       text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, campaign_id, id)
);

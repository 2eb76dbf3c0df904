-- A/B tests with a holdout, and what users did after a campaign (docs/campaigns.md).

-- The messages of an A/B test (HeraldCore's CampaignVariant, as JSON; each variant's template
-- version is pinned here when the campaign is scheduled), the held-out share in basis points,
-- and how long after a notification a conversion counts for the campaign.
ALTER TABLE campaigns
    ADD COLUMN variants jsonb NOT NULL DEFAULT '[]'
        CHECK (jsonb_typeof(variants) = 'array' AND jsonb_array_length(variants) <= 5),
    ADD COLUMN holdout_basis_points integer NOT NULL DEFAULT 0 CHECK (holdout_basis_points BETWEEN 0 AND 5000),
    ADD COLUMN attribution_window_seconds integer NOT NULL DEFAULT 86400
        CHECK (attribution_window_seconds BETWEEN 3600 AND 2592000);

-- Held-out devices get a ledger row of their own (no notification), counted by the chunk.
ALTER TABLE campaign_chunks ADD COLUMN held_out bigint NOT NULL DEFAULT 0;

-- The message a device was assigned (an index into the campaign's messages); NULL for the
-- holdout. Reports read it from here, never recompute it.
ALTER TABLE deliveries ADD COLUMN variant smallint CHECK (variant BETWEEN 0 AND 4);
ALTER TABLE deliveries DROP CONSTRAINT deliveries_outcome_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_outcome_check
    CHECK (outcome IN ('accepted', 'failed', 'skipped', 'deferred', 'unsent', 'heldOut'));
-- Opens name the notification by its apns-id.
CREATE INDEX deliveries_apns_id_idx ON deliveries (app_id, apns_id) WHERE apns_id IS NOT NULL;

-- Outcome counters by message, beside the chunk's totals: each batch adds to its own chunk's
-- rows, so concurrent workers never queue on one hot row.
CREATE TABLE campaign_chunk_variants (
    app_id      bigint NOT NULL,
    campaign_id bigint NOT NULL,
    chunk       integer NOT NULL,
    variant     smallint NOT NULL CHECK (variant BETWEEN 0 AND 4),
    accepted    bigint NOT NULL DEFAULT 0,
    failed      bigint NOT NULL DEFAULT 0,
    skipped     bigint NOT NULL DEFAULT 0,
    deferred    bigint NOT NULL DEFAULT 0,
    unsent      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, campaign_id, chunk, variant),
    FOREIGN KEY (app_id, campaign_id, chunk) REFERENCES campaign_chunks (app_id, campaign_id, chunk) ON DELETE CASCADE
);

-- What apps report: opens (by apns-id) and conversions (by device or user), append-only.
-- Attribution is decided once, when the event arrives, and stored with it.
CREATE TABLE events (
    app_id          bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id              bigint GENERATED ALWAYS AS IDENTITY,
    kind            text NOT NULL CHECK (kind IN ('opened', 'converted')),
    -- SHA-256 of what makes the event itself (AppEvent.identity): a repeat counts once.
    identity        bytea NOT NULL CHECK (octet_length(identity) = 32),
    occurred_at     timestamptz NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now(),
    apns_id         uuid,
    -- The device the event is about (for a user's conversion, the device its campaign reached).
    device_id       bigint,
    user_id         text,
    name            text,
    value           double precision,
    -- The attribution: NULL when no campaign reached the device within its window.
    campaign_id     bigint REFERENCES campaigns (id) ON DELETE CASCADE,
    -- NULL with a campaign: the device was held out.
    variant         smallint,
    language        text,
    PRIMARY KEY (app_id, id),
    UNIQUE (app_id, identity),
    CHECK ((kind = 'opened') = (apns_id IS NOT NULL))
);
-- Reports sum a campaign's events by kind and message.
CREATE INDEX events_campaign_idx ON events (campaign_id, kind, variant) WHERE campaign_id IS NOT NULL;

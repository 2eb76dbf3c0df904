-- The token registry: apps, their devices, API keys and the audit log.
-- Tables carry app_id in every key so the schema can be distributed by app (Citus).

CREATE TABLE apps (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bundle_id           text NOT NULL UNIQUE
                        CHECK (bundle_id ~ '^[A-Za-z0-9-]([A-Za-z0-9.-]{0,153}[A-Za-z0-9-])?$'),
    team_id             text NOT NULL CHECK (team_id ~ '^[A-Z0-9]{10}$'),
    key_id              text NOT NULL CHECK (key_id ~ '^[A-Z0-9]{10}$'),
    -- The .p8 signing key, sealed with AES-GCM under HERALD_SECRET_KEY; never returned.
    signing_key_sealed  bytea NOT NULL,
    default_environment text NOT NULL CHECK (default_environment IN ('sandbox', 'production')),
    apns_endpoint       text,
    apns_ca_pem         text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE devices (
    app_id               bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id                   bigint GENERATED ALWAYS AS IDENTITY,
    -- 8 to 200 hex digits at the edges.
    token                bytea NOT NULL CHECK (octet_length(token) BETWEEN 4 AND 100),
    -- A stable hash of the token into 256 virtual shards, for splitting campaign work.
    bucket               smallint NOT NULL GENERATED ALWAYS AS (get_byte(sha256(token), 0)) STORED,
    environment          text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    -- BCP 47 tags, most preferred first.
    languages            text[] NOT NULL DEFAULT '{}' CHECK (cardinality(languages) <= 10),
    authorization_status text NOT NULL DEFAULT 'notDetermined'
                         CHECK (authorization_status IN
                                ('notDetermined', 'denied', 'authorized', 'provisional', 'ephemeral')),
    alert_enabled        boolean NOT NULL DEFAULT false,
    badge_enabled        boolean NOT NULL DEFAULT false,
    sound_enabled        boolean NOT NULL DEFAULT false,
    critical_alert_enabled boolean NOT NULL DEFAULT false,
    time_sensitive_enabled boolean NOT NULL DEFAULT false,
    time_zone            text,
    user_id              text,
    attributes           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
    -- Server time of the latest registration: the 410 rule compares APNs's timestamp with it.
    registered_at        timestamptz NOT NULL DEFAULT now(),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    invalidated_at       timestamptz,
    invalidation_reason  text,
    apns_unregistered_at timestamptz,
    PRIMARY KEY (app_id, id),
    UNIQUE (app_id, token),
    CHECK ((invalidated_at IS NULL) = (invalidation_reason IS NULL))
);

-- Listing by user, and transactional sends to a user's devices.
CREATE INDEX devices_app_user_idx ON devices (app_id, user_id) WHERE user_id IS NOT NULL;
-- Listing by language.
CREATE INDEX devices_languages_idx ON devices USING gin (languages);
-- Campaign chunks walk one bucket range of valid devices in ID order.
CREATE INDEX devices_app_bucket_id_idx ON devices (app_id, bucket, id) WHERE invalidated_at IS NULL;
-- Pruning: invalidated devices by age, and devices that stopped registering.
CREATE INDEX devices_invalidated_at_idx ON devices (invalidated_at) WHERE invalidated_at IS NOT NULL;
CREATE INDEX devices_registered_at_idx ON devices (registered_at);

CREATE TABLE api_keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- "hk_" and the first 8 hex digits: shown in lists, not enough to use.
    prefix       text NOT NULL,
    -- SHA-256 of the whole key; the key itself is never stored.
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    role         text NOT NULL CHECK (role IN ('app', 'marketing', 'admin')),
    app_id       bigint REFERENCES apps (id) ON DELETE CASCADE,
    name         text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz,
    CHECK ((role = 'app') = (app_id IS NOT NULL))
);

CREATE TABLE audit_log (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor      text NOT NULL,
    action     text NOT NULL,
    app_id     bigint REFERENCES apps (id) ON DELETE SET NULL,
    details    jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at_idx ON audit_log (at);

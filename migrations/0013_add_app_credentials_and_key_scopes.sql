-- Apps' APNs credentials become rows of their own, so admins can add a new signing key, make it
-- the active one and retire the old one without SQL and without a restart (docs/admin.md).
-- Apps can be disabled; API keys gain an expiry and, for marketing keys, a set of apps.

CREATE TABLE app_credentials (
    id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id                 bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- 'token': a .p8 signing key for provider tokens; 'certificate': a TLS client certificate.
    kind                   text NOT NULL CHECK (kind IN ('token', 'certificate')),
    key_id                 text CHECK (key_id ~ '^[A-Z0-9]{10}$'),
    -- The secret, sealed with AES-GCM under HERALD_SECRET_KEY; wiped when the credential is retired.
    secret_sealed          bytea,
    -- 1: sealed without associated data (keys stored before this migration);
    -- 2: sealed with the app's and the credential's IDs as associated data, so a sealed value
    --    copied onto another row does not open.
    seal_format            smallint NOT NULL DEFAULT 2 CHECK (seal_format IN (1, 2)),
    -- The first 16 hex digits of the SHA-256 of the public key (DER), to recognise a key by.
    fingerprint            text,
    certificate_subject    text,
    certificate_expires_at timestamptz,
    -- One active credential per app signs what it sends; standby ones wait; retired ones are gone.
    state                  text NOT NULL CHECK (state IN ('active', 'standby', 'retired')),
    created_at             timestamptz NOT NULL DEFAULT now(),
    activated_at           timestamptz,
    retired_at             timestamptz,
    CHECK ((kind = 'token') = (key_id IS NOT NULL)),
    CHECK ((state = 'retired') = (secret_sealed IS NULL)),
    CHECK ((state = 'retired') = (retired_at IS NOT NULL))
);
-- The sender reads an app's active credential; there is at most one.
CREATE UNIQUE INDEX app_credentials_active_idx ON app_credentials (app_id) WHERE state = 'active';
CREATE INDEX app_credentials_app_idx ON app_credentials (app_id, id);

INSERT INTO app_credentials (app_id, kind, key_id, secret_sealed, seal_format, state, created_at, activated_at)
SELECT id, 'token', key_id, signing_key_sealed, 1, 'active', created_at, created_at FROM apps ORDER BY id;

ALTER TABLE apps DROP COLUMN key_id, DROP COLUMN signing_key_sealed;
-- A disabled app sends nothing: campaigns cannot be scheduled, transactional sends are refused
-- and batches already under way fail with AppDisabled.
ALTER TABLE apps ADD COLUMN disabled_at timestamptz;

ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
-- The apps a marketing key may work on; NULL: every app.
ALTER TABLE api_keys ADD COLUMN app_scope bigint[] CHECK (app_scope IS NULL OR (role = 'marketing' AND cardinality(app_scope) > 0));

-- Reading the audit log by who or what, newest first.
CREATE INDEX audit_log_actor_idx ON audit_log (actor, id);
CREATE INDEX audit_log_action_idx ON audit_log (action, id);

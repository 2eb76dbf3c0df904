-- Webhooks (docs/webhooks.md): endpoints admins configure, for one app or for every app, and an
-- outbox of messages written in the same transaction as what they report (a token invalidated,
-- a campaign finished, credentials refused), delivered afterwards with retries, at least once.

CREATE TABLE webhook_endpoints (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The app whose events it receives, with full device tokens; NULL: every app's events, with
    -- token suffixes only.
    app_id        bigint REFERENCES apps (id) ON DELETE CASCADE,
    url           text NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2048),
    -- The event types it receives.
    events        text[] NOT NULL CHECK (cardinality(events) > 0),
    -- The signing secret (whsec_…), sealed with AES-GCM under HERALD_SECRET_KEY, bound to the row.
    secret_sealed bytea NOT NULL,
    description   text CHECK (length(description) <= 200),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_app_idx ON webhook_endpoints (app_id);

CREATE TABLE webhook_messages (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id     bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- The idempotency ID (the webhook-id header), the same on every attempt.
    message_id      uuid NOT NULL DEFAULT gen_random_uuid(),
    type            text NOT NULL,
    occurred_at     timestamptz NOT NULL DEFAULT now(),
    -- The event's data; an endpoint for every app gets it without `token` and `userID`.
    data            jsonb NOT NULL,
    -- pending: to deliver (again); delivered: answered 2xx; failed: out of attempts or too old.
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    -- When it is due; a claimed message is pushed past its attempt's deadline, so a message
    -- whose instance died is tried again then.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_attempt_at timestamptz,
    last_status     integer,
    last_error      text,
    finished_at     timestamptz,
    CHECK ((state = 'pending') = (finished_at IS NULL))
);
CREATE INDEX webhook_messages_due_idx ON webhook_messages (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_messages_endpoint_idx ON webhook_messages (endpoint_id, id);
CREATE INDEX webhook_messages_pending_idx ON webhook_messages (endpoint_id) WHERE state = 'pending';
-- Retention deletes delivered and failed messages by when they finished.
CREATE INDEX webhook_messages_finished_idx ON webhook_messages (finished_at);

-- APNs refusing a credential is noted once (the credentials.rejected event fires then).
ALTER TABLE app_credentials ADD COLUMN rejected_at timestamptz, ADD COLUMN rejection_reason text;

-- Times in webhook messages, as the API writes them: RFC 3339 in UTC with milliseconds.
CREATE FUNCTION herald_rfc3339(timestamptz) RETURNS text LANGUAGE sql STABLE STRICT
    AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

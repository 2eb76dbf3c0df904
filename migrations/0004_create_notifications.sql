-- The ledger of transactional notifications (`POST /v1/apps/{bundleID}/notifications`): one
-- row per recipient of each request, so "did this user get it?" has an answer.
CREATE TABLE notifications (
    app_id      bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    -- One per API call: the rows of one request share it.
    request_id  uuid NOT NULL,
    token       bytea NOT NULL CHECK (octet_length(token) BETWEEN 4 AND 100),
    -- The registered device, when the token was registered (not a foreign key: pruning
    -- deletes devices, the ledger stays).
    device_id   bigint,
    outcome     text NOT NULL CHECK (outcome IN ('accepted', 'failed', 'skipped', 'deferred', 'unsent')),
    status      integer,
    reason      text,
    apns_id     uuid,
    language    text,
    actor       text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, id)
);
CREATE INDEX notifications_request_idx ON notifications (app_id, request_id);
CREATE INDEX notifications_device_idx ON notifications (app_id, device_id, id) WHERE device_id IS NOT NULL;

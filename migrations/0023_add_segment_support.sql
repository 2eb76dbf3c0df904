-- Segments (docs/segments.md): a date stored in an attribute is read without ever failing a
-- query, and behaviour conditions find a device's accepted pushes and events by index.

-- NULL for text that is not a timestamp PostgreSQL reads (e.g. "2027-02-30"), instead of an
-- error: a segment comparing dates must not fail on one device's bad value.
CREATE FUNCTION herald_try_timestamptz(value text) RETURNS timestamptz
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF value !~ '^\d{4}-\d{2}-\d{2}' THEN
        RETURN NULL;
    END IF;
    RETURN value::timestamptz;
EXCEPTION WHEN others THEN
    RETURN NULL;
END
$$;

-- "Received (within N days)": a device's accepted pushes, newest last.
CREATE INDEX deliveries_device_accepted_idx ON deliveries (app_id, device_id, created_at) WHERE outcome = 'accepted';
-- "Opened" and "converted": a device's events of a kind by time.
CREATE INDEX events_device_kind_idx ON events (app_id, device_id, kind, occurred_at) WHERE device_id IS NOT NULL;

-- Saved segments: named per app, each change a new immutable version (docs/segments.md "Saved
-- segments"). Deleting archives one: its versions stay for whatever pinned them, and its name
-- is free again.
CREATE TABLE segments (
    app_id          bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id              bigint GENERATED ALWAYS AS IDENTITY,
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    description     text CHECK (char_length(description) <= 1000),
    latest_version  integer NOT NULL DEFAULT 1 CHECK (latest_version >= 1),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    archived_at     timestamptz,
    PRIMARY KEY (app_id, id)
);
CREATE UNIQUE INDEX segments_name_idx ON segments (app_id, name) WHERE archived_at IS NULL;

CREATE TABLE segment_versions (
    app_id      bigint NOT NULL,
    segment_id  bigint NOT NULL,
    version     integer NOT NULL CHECK (version >= 1),
    definition  jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, segment_id, version),
    FOREIGN KEY (app_id, segment_id) REFERENCES segments (app_id, id) ON DELETE CASCADE
);

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

-- A campaign chunk reads its buckets one after the other, each in device ID order, 500 devices at
-- a time, by keyset on (bucket, id):
--   WHERE app_id = $1 AND invalidated_at IS NULL AND (bucket, id) > ($2, $3) AND bucket <= $4
--     AND id <= $bound ORDER BY bucket, id LIMIT 500
-- a range scan of (app_id, bucket, id) that visits only the chunk's own index entries. With
-- migration 0005's (app_id, id, bucket) every chunk walked the app's whole index in ID order and
-- skipped the 15 of 16 entries in other chunks' buckets: 16 passes over the index per campaign,
-- and a last read per chunk that walked to the end of the index to find nothing.
CREATE INDEX devices_app_bucket_id_idx ON devices (app_id, bucket, id) WHERE invalidated_at IS NULL;
CREATE INDEX devices_app_zone_bucket_id_idx ON devices (app_id, (coalesce(time_zone, '')), bucket, id)
    WHERE invalidated_at IS NULL;
DROP INDEX devices_app_id_bucket_idx;
DROP INDEX devices_app_zone_id_bucket_idx;

-- A chunk's cursor is now a position, bucket * 2^48 + device ID, and in_flight_to too. A chunk
-- under way keeps its place: its cursor was the last device ID read over all its buckets, so it
-- becomes a floor below which no device is read again, and the position starts over.
ALTER TABLE campaign_chunks ADD COLUMN id_floor bigint NOT NULL DEFAULT 0;
UPDATE campaign_chunks SET id_floor = cursor, cursor = 0, in_flight_to = NULL
WHERE state = 'pending' AND cursor > 0;

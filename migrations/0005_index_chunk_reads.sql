-- A campaign chunk reads its bucket range in ID order, 500 devices at a time:
--   WHERE app_id = $1 AND invalidated_at IS NULL AND bucket BETWEEN $2 AND $3
--     AND id > $cursor AND id <= $bound ORDER BY id LIMIT 500
-- With (app_id, bucket, id) PostgreSQL had to collect every remaining device of the chunk's 16
-- buckets and sort them for each batch (quadratic over a campaign; planned so whenever the
-- table's statistics lag, e.g. right after a large import). With id before bucket the scan
-- follows ORDER BY id and checks the bucket inside the index, visiting the heap only for the
-- devices it returns: one index pass per chunk over a whole campaign.
CREATE INDEX devices_app_id_bucket_idx ON devices (app_id, id, bucket) WHERE invalidated_at IS NULL;
DROP INDEX devices_app_bucket_id_idx;

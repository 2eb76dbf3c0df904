-- Devices carry their part: which sixteenth of the bucket range (bucket / 16, the same slices a
-- campaign's chunks cover) the device is in, stored as a label (docs/scaling.md, "Parts").
--
-- On one PostgreSQL a chunk's read then seeks straight to its part's devices in ID order,
-- instead of walking every device of the app and keeping one in sixteen. On Citus `part` is the
-- distribution column of the tables that grow with devices, and the labels are chosen so that,
-- with 16 shards, each part is alone in its shard: a chunk's reads and writes go to one shard,
-- and the 16 parts spread evenly over the workers. A shard covers one sixteenth of the int4 hash
-- range (hashint4, what Citus hashes an integer column with); a part's label is the smallest
-- non-negative integer whose hash falls in its shard's range.
DO $$
DECLARE
    labels integer[] := '{}';
    low bigint;
    label integer;
BEGIN
    FOR part IN 0..15 LOOP
        low := -2147483648 + part * 268435456::bigint;
        SELECT min(g) INTO label FROM generate_series(0, 100000) AS g
        WHERE hashint4(g) BETWEEN low AND low + 268435455;
        labels := labels || label;
    END LOOP;
    EXECUTE format(
        'CREATE FUNCTION herald_part(bucket integer) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE '
        'AS %L', format('SELECT (%L::integer[])[bucket / 16 + 1]', labels));
END
$$;

-- Filled by rewriting the table once (a type change with USING), not by an UPDATE: on a million
-- devices 15 s instead of 43 s, and without leaving a dead copy of every row behind
-- (docs/scaling.md, "Upgrading a large registry").
ALTER TABLE devices ADD COLUMN part integer;
ALTER TABLE devices ALTER COLUMN part SET DATA TYPE integer USING herald_part(bucket);
ALTER TABLE devices ALTER COLUMN part SET NOT NULL;
ALTER TABLE devices ADD CONSTRAINT devices_part_check CHECK (part = herald_part(bucket));

-- A unique key of a distributed table includes its distribution column: (app_id, token) stays
-- unique (a token has one bucket, so one part), and registrations name all three.
ALTER TABLE devices ADD CONSTRAINT devices_app_id_token_part_key UNIQUE (app_id, token, part);
ALTER TABLE devices DROP CONSTRAINT devices_app_id_token_key;

-- A chunk's page: its part's valid devices after the cursor, in ID order (migration 0005's
-- index, with the part before the ID).
CREATE INDEX devices_app_part_id_bucket_idx ON devices (app_id, part, id, bucket) WHERE invalidated_at IS NULL;
DROP INDEX devices_app_id_bucket_idx;

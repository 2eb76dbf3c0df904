-- Segments on "any of the device's languages" (docs/segments.md): without an index, each count
-- unnests every device's languages (1.6 s over a million devices, BENCHMARKS.md "Segments").
-- A bare language matches by primary subtag, through this immutable function of the array; a
-- longer tag matches exactly, through the array's own GIN index (migration 0001).
CREATE FUNCTION herald_primary_languages(tags text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(DISTINCT split_part(tag, '-', 1)), '{}') FROM unnest(tags) AS tag
$$;

CREATE INDEX devices_primary_languages_idx ON devices USING gin (herald_primary_languages(languages))
    WHERE invalidated_at IS NULL;

-- A campaign chunk reads its devices a page at a time in ID order, from a range scan of
-- (app_id, id, bucket) that stops at the page's last device. With a segment as a plain filter,
-- the planner estimates it selective, so it reads the chunk's whole range (or a language's whole
-- bitmap) and sorts it, for every page. Behind this function (opaque to the planner, which then
-- assumes a third of the rows pass), the ordered scan stays the plan (BENCHMARKS.md "Segments").
CREATE FUNCTION herald_keep(matches boolean) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    RETURN matches;
END
$$;

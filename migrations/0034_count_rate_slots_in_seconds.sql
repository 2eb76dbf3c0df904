-- A campaign's rate-limit timeline (migration 0009) counts in seconds since the epoch instead of
-- timestamps: the booking's upsert adds the batch's span to the slot in its ON CONFLICT clause,
-- and on a Citus cluster that clause may use only immutable functions, which adding an interval
-- to a timestamptz is not (it depends on the session's time zone). Adding seconds to seconds is.
-- Same meaning, same booking rule (docs/campaigns.md, "Rate limit"); the rows in flight keep
-- their slot.
ALTER TABLE campaign_rate_slots
    ALTER COLUMN next_at SET DATA TYPE double precision USING extract(epoch FROM next_at);

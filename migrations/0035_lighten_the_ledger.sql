-- The ledger is what a campaign writes most: a row per device. Two of the costs paid for each
-- row bought nothing a reader needs (docs/data-model.md, "Campaigns"; BENCHMARKS.md, "The
-- ledger, lighter"):
--
-- * The foreign key to `campaigns` ran a lookup of the campaign, with a row lock, for every
--   inserted row, inside the batch's INSERT. Herald never deletes a campaign (retention deletes
--   a campaign's rows or drops a month of the ledger, and keeps the campaign), and a row is
--   written only by a worker holding one of the campaign's chunks, whose own key to
--   `campaigns` stays. Dropped.
-- * The index that lists a campaign's rows by outcome and reason held every row, though the
--   rows nearly every campaign has most of are accepted ones, which the ledger's key lists in
--   the same order (a campaign's rows by device). It now holds the others only: failed,
--   skipped, deferred, unsent and held out, the rows one filters for.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_campaign_id_fkey;

DROP INDEX deliveries_ledger_idx;
CREATE INDEX deliveries_ledger_idx ON deliveries (campaign_id, outcome, reason, device_id)
    WHERE outcome <> 'accepted';

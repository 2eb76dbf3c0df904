-- A device APNs answered 429 TooManyRequests is tried again later in the same campaign
-- (docs/campaigns.md, "Deferred devices"): its ledger row stays `deferred` with the attempts so
-- far and when to try next; when the attempts run out, `retry_at` is cleared and `deferred` is
-- its outcome.
ALTER TABLE deliveries
    ADD COLUMN attempts smallint NOT NULL DEFAULT 1 CHECK (attempts >= 1),
    ADD COLUMN retry_at timestamptz;
CREATE INDEX deliveries_retry_idx ON deliveries (app_id, campaign_id, retry_at) WHERE retry_at IS NOT NULL;

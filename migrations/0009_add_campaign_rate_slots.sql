-- A campaign's rate limit holds for all instances together: every batch books its slot on one
-- timeline per campaign (docs/campaigns.md, "Rate limit"). `next_at` is when the sends booked
-- so far will have had their time; a batch of n books n / rate seconds from there (or from now,
-- if that is later) and waits until its slot starts.
CREATE TABLE campaign_rate_slots (
    campaign_id bigint PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,
    next_at     timestamptz NOT NULL
);

-- Frequency caps (docs/campaigns.md, "Frequency caps"): an app's caps, frozen on each campaign
-- when it starts, and the sends they count.

-- [{"limit": 3, "window": 604800}, …]: at most `limit` campaign notifications per device in any
-- `window` seconds.
ALTER TABLE apps ADD COLUMN frequency_caps jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(frequency_caps) = 'array');
ALTER TABLE campaigns ADD COLUMN frequency_caps jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(frequency_caps) = 'array');

-- One row per campaign notification a capped campaign reserved for a device: written before the
-- batch is sent (under advisory locks on the batch's device buckets, so concurrent campaigns and
-- instances take turns per device), deleted again when the notification was not accepted. A
-- device's places are found through the primary key's (app_id, device_id) prefix: a device has
-- one per campaign that reached it, so no second index is kept. Rows older than the longest
-- window a cap may have (90 days) no longer count; the scheduler deletes them. No foreign keys:
-- a row is a count.
CREATE TABLE frequency_sends (
    app_id      bigint NOT NULL,
    device_id   bigint NOT NULL,
    campaign_id bigint NOT NULL,
    sent_at     timestamptz NOT NULL,
    PRIMARY KEY (app_id, device_id, campaign_id)
);

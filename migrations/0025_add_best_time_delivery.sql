-- Best-time delivery (docs/campaigns.md "Best time"): each device gets a campaign at the hour of
-- its window it opens pushes at most. The hours are learned when the campaign starts and kept
-- here for the devices whose hour is not the campaign's default (most devices have too few
-- opens of their own and get the app's most popular hour).
CREATE TABLE campaign_send_offsets (
    campaign_id  bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    device_id    bigint NOT NULL,
    -- Whole hours after the window's start.
    send_offset  smallint NOT NULL CHECK (send_offset BETWEEN 0 AND 23),
    PRIMARY KEY (campaign_id, device_id)
);

ALTER TABLE campaigns
    -- The hour (after the window's start) of devices without one of their own.
    ADD COLUMN best_time_default_offset smallint CHECK (best_time_default_offset BETWEEN 0 AND 23);

ALTER TABLE campaign_chunks
    -- A best-time chunk holds the devices of its zone sent at this hour after the window's start.
    ADD COLUMN send_offset smallint CHECK (send_offset BETWEEN 0 AND 23);

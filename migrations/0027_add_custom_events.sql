-- Custom events (docs/campaigns.md "Events"): anything the app names that a user did
-- (`cart_abandoned`), with its properties, for segments now and journeys next. Stored beside
-- opens and conversions; never attributed to a campaign.
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check CHECK (kind IN ('opened', 'converted', 'custom'));
ALTER TABLE events ADD COLUMN properties jsonb CHECK (properties IS NULL OR jsonb_typeof(properties) = 'object');
-- "Did cart_abandoned within 7 days", for a device, or for a user whose event named no device.
CREATE INDEX events_device_custom_idx ON events (app_id, device_id, name, occurred_at)
    WHERE kind = 'custom' AND device_id IS NOT NULL;
CREATE INDEX events_user_custom_idx ON events (app_id, user_id, name, occurred_at)
    WHERE kind = 'custom' AND device_id IS NULL;

-- Read paths for a token's or a user's history and for data requests (docs/admin.md).
-- The transactional ledger by token, newest first.
CREATE INDEX notifications_token_idx ON notifications (app_id, token, id);
-- A user's events, and a device's.
CREATE INDEX events_user_idx ON events (app_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX events_device_idx ON events (app_id, device_id) WHERE device_id IS NOT NULL;

-- Retention deletes old rows in small batches by time (docs/admin.md "Retention"); these
-- indexes find them without reading the tables whole.
CREATE INDEX notifications_created_at_idx ON notifications (created_at);
CREATE INDEX test_deliveries_created_at_idx ON test_deliveries (created_at);
CREATE INDEX events_received_at_idx ON events (received_at);
-- A finished campaign whose delivery ledger retention deleted: its figures stay.
ALTER TABLE campaigns ADD COLUMN deliveries_purged_at timestamptz;
CREATE INDEX campaigns_finished_at_idx ON campaigns (finished_at) WHERE deliveries_purged_at IS NULL;

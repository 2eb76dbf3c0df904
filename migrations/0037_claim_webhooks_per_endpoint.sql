-- Webhook claims read each endpoint's due messages from an index of its own
-- (docs/webhooks.md, "Running it"; BENCHMARKS.md, "Webhook delivery: claims per endpoint").
--
-- The claim used to read up to eight times the messages it took from the due index on
-- `next_attempt_at` alone and rank them per endpoint. After a burst (a campaign's 50,000
-- invalidations queued at once) the planner's statistics still say the outbox is nearly
-- empty, so it read every pending message in a bitmap scan and sorted them, each claim, for a
-- few dozen rows: 5 ms per claim at 30,000 pending. Now a claim walks the endpoints and takes
-- at most an endpoint's share from the head of this index, whatever the statistics say.
--
-- It also serves what the two indexes it replaces did: an endpoint's pending count, and the
-- hold on an endpoint's other due messages after a failure.
--
-- The index retention deletes by keeps finished messages only: a pending message (no
-- `finished_at`) is no longer written to it on every claim, and a statement that finds rows
-- by ID and checks `finished_at IS NULL` cannot be planned through it.
CREATE INDEX webhook_messages_endpoint_due_idx ON webhook_messages (endpoint_id, next_attempt_at, id)
    WHERE state = 'pending';
DROP INDEX webhook_messages_due_idx;
DROP INDEX webhook_messages_pending_idx;
DROP INDEX webhook_messages_finished_idx;
CREATE INDEX webhook_messages_finished_idx ON webhook_messages (finished_at) WHERE finished_at IS NOT NULL;

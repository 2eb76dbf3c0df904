-- Messages queued wake the webhook dispatchers at once (docs/webhooks.md, "Running it"): a
-- statement that queues any notifies `herald_webhooks`, which PostgreSQL delivers when its
-- transaction commits, and every instance listening claims then instead of at its next poll.
-- One notification per statement (PostgreSQL folds repeats within a transaction), none for a
-- statement that queued nothing (an event no endpoint takes), so an app without webhooks pays
-- nothing on its invalidations.
CREATE FUNCTION herald_webhooks_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM queued) THEN
        PERFORM pg_notify('herald_webhooks', '');
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER webhook_messages_queued AFTER INSERT ON webhook_messages
    REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION herald_webhooks_notify();

-- What the console draws without reading the ledger (docs/console.md, "Speed"): each chunk's
-- outcomes by the language they were rendered in, and its sends by minute. Both are kept per
-- chunk, written in the statement that records a batch, so the one worker holding a chunk is
-- the only writer of its rows; a campaign's figures are the sum over its chunks.
CREATE TABLE campaign_chunk_languages (
    app_id      bigint NOT NULL,
    campaign_id bigint NOT NULL,
    chunk       integer NOT NULL,
    -- '' for devices that got no rendering (held out, unsent).
    language    text NOT NULL,
    accepted    bigint NOT NULL DEFAULT 0,
    failed      bigint NOT NULL DEFAULT 0,
    skipped     bigint NOT NULL DEFAULT 0,
    deferred    bigint NOT NULL DEFAULT 0,
    unsent      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, campaign_id, chunk, language),
    FOREIGN KEY (app_id, campaign_id, chunk) REFERENCES campaign_chunks (app_id, campaign_id, chunk) ON DELETE CASCADE
);

CREATE TABLE campaign_chunk_minutes (
    app_id      bigint NOT NULL,
    campaign_id bigint NOT NULL,
    chunk       integer NOT NULL,
    -- The minute (UTC) in which APNs's answers were recorded.
    minute      timestamptz NOT NULL,
    accepted    bigint NOT NULL DEFAULT 0,
    failed      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, campaign_id, chunk, minute),
    FOREIGN KEY (app_id, campaign_id, chunk) REFERENCES campaign_chunks (app_id, campaign_id, chunk) ON DELETE CASCADE
);

-- Each campaign chunk carries a part, the label of its first bucket's part, and so do its
-- counters (by variant, language and minute); their keys hold it, and every statement on them
-- names it. That is what a Citus cluster needs to distribute these four tables by part beside
-- `devices` and the ledger (docs/scaling.md, "Which table goes where"): a chunk inside one part
-- (every chunk of a campaign sent at once, and of a large zone) would then have its row, its
-- counters, its devices and its ledger rows in one shard, and recording a batch would be one
-- worker's transaction. On one PostgreSQL the keys grow by four bytes a row and nothing else
-- changes: a chunk's part follows from its bucket range, so (campaign, chunk) stays unique.
--
-- These tables hold a row per chunk (16 per campaign sent at once, a few hundred for one sent
-- in local time): an UPDATE is enough to fill the column.
ALTER TABLE campaign_chunks ADD COLUMN part integer;
UPDATE campaign_chunks SET part = herald_part(bucket_from);
ALTER TABLE campaign_chunks ALTER COLUMN part SET NOT NULL;
ALTER TABLE campaign_chunks ADD CONSTRAINT campaign_chunks_part_check CHECK (part = herald_part(bucket_from));

ALTER TABLE campaign_chunk_variants ADD COLUMN part integer;
UPDATE campaign_chunk_variants v SET part = k.part FROM campaign_chunks k
WHERE k.app_id = v.app_id AND k.campaign_id = v.campaign_id AND k.chunk = v.chunk;
ALTER TABLE campaign_chunk_variants ALTER COLUMN part SET NOT NULL;

ALTER TABLE campaign_chunk_languages ADD COLUMN part integer;
UPDATE campaign_chunk_languages l SET part = k.part FROM campaign_chunks k
WHERE k.app_id = l.app_id AND k.campaign_id = l.campaign_id AND k.chunk = l.chunk;
ALTER TABLE campaign_chunk_languages ALTER COLUMN part SET NOT NULL;

ALTER TABLE campaign_chunk_minutes ADD COLUMN part integer;
UPDATE campaign_chunk_minutes m SET part = k.part FROM campaign_chunks k
WHERE k.app_id = m.app_id AND k.campaign_id = m.campaign_id AND k.chunk = m.chunk;
ALTER TABLE campaign_chunk_minutes ALTER COLUMN part SET NOT NULL;

ALTER TABLE campaign_chunk_variants DROP CONSTRAINT campaign_chunk_variants_app_id_campaign_id_chunk_fkey;
ALTER TABLE campaign_chunk_languages DROP CONSTRAINT campaign_chunk_languages_app_id_campaign_id_chunk_fkey;
ALTER TABLE campaign_chunk_minutes DROP CONSTRAINT campaign_chunk_minutes_app_id_campaign_id_chunk_fkey;

-- One change a statement: a Citus cluster refuses ADD CONSTRAINT beside other subcommands.
ALTER TABLE campaign_chunks DROP CONSTRAINT campaign_chunks_pkey;
ALTER TABLE campaign_chunks ADD CONSTRAINT campaign_chunks_pkey PRIMARY KEY (app_id, campaign_id, chunk, part);

ALTER TABLE campaign_chunk_variants DROP CONSTRAINT campaign_chunk_variants_pkey;
ALTER TABLE campaign_chunk_variants ADD CONSTRAINT campaign_chunk_variants_pkey PRIMARY KEY (app_id, campaign_id, chunk, part, variant);
ALTER TABLE campaign_chunk_variants ADD CONSTRAINT campaign_chunk_variants_chunk_fkey
    FOREIGN KEY (app_id, campaign_id, chunk, part) REFERENCES campaign_chunks (app_id, campaign_id, chunk, part)
    ON DELETE CASCADE;

ALTER TABLE campaign_chunk_languages DROP CONSTRAINT campaign_chunk_languages_pkey;
ALTER TABLE campaign_chunk_languages ADD CONSTRAINT campaign_chunk_languages_pkey PRIMARY KEY (app_id, campaign_id, chunk, part, language);
ALTER TABLE campaign_chunk_languages ADD CONSTRAINT campaign_chunk_languages_chunk_fkey
    FOREIGN KEY (app_id, campaign_id, chunk, part) REFERENCES campaign_chunks (app_id, campaign_id, chunk, part)
    ON DELETE CASCADE;

ALTER TABLE campaign_chunk_minutes DROP CONSTRAINT campaign_chunk_minutes_pkey;
ALTER TABLE campaign_chunk_minutes ADD CONSTRAINT campaign_chunk_minutes_pkey PRIMARY KEY (app_id, campaign_id, chunk, part, minute);
ALTER TABLE campaign_chunk_minutes ADD CONSTRAINT campaign_chunk_minutes_chunk_fkey
    FOREIGN KEY (app_id, campaign_id, chunk, part) REFERENCES campaign_chunks (app_id, campaign_id, chunk, part)
    ON DELETE CASCADE;

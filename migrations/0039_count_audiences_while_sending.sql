-- A started campaign's audience is counted after its start commits, while the engines send
-- (docs/campaigns.md, "Starting"): counting a large audience takes a second or more, and the
-- first notification no longer waits for it. NULL: a started campaign not counted yet; it
-- cannot complete until it is.
ALTER TABLE campaigns ALTER COLUMN audience_size DROP NOT NULL;

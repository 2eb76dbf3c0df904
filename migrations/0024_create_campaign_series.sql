-- Recurring campaigns (docs/campaigns.md "Recurring campaigns"): a campaign to copy and a
-- schedule; each run is a campaign of its own that points back at its series.
CREATE TABLE campaign_series (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id          bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    public_id       uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 180),
    -- The campaign draft each run copies (its send time is the schedule's).
    blueprint       jsonb NOT NULL CHECK (jsonb_typeof(blueprint) = 'object'),
    recurrence      jsonb NOT NULL CHECK (jsonb_typeof(recurrence) = 'object'),
    state           text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'stopped', 'finished')),
    -- The next run: its date and when it is due. NULL once the series has no run left.
    next_run_date   text,
    next_run_at     timestamptz,
    -- The number the next run gets, and how many runs started (the schedule's `runs` counts these).
    next_run        integer NOT NULL DEFAULT 1 CHECK (next_run >= 1),
    runs_started    integer NOT NULL DEFAULT 0 CHECK (runs_started >= 0),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((next_run_at IS NULL) = (next_run_date IS NULL))
);
-- What the engine's scheduler reads each poll: active series by due time.
CREATE INDEX campaign_series_due_idx ON campaign_series (next_run_at) WHERE state = 'active';
CREATE INDEX campaign_series_app_idx ON campaign_series (app_id, id);

-- One row per run number: the primary key is what keeps two instances (or a restart) from
-- starting a run twice.
CREATE TABLE campaign_series_runs (
    series_id    bigint NOT NULL REFERENCES campaign_series (id) ON DELETE CASCADE,
    run          integer NOT NULL CHECK (run >= 1),
    run_date     text NOT NULL,
    due_at       timestamptz NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('started', 'skipped', 'missed', 'failed')),
    campaign_id  bigint REFERENCES campaigns (id) ON DELETE SET NULL,
    reason       text,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (series_id, run)
);

ALTER TABLE campaigns
    ADD COLUMN series_id bigint REFERENCES campaign_series (id) ON DELETE SET NULL,
    ADD COLUMN series_run integer;
CREATE UNIQUE INDEX campaigns_series_run_idx ON campaigns (series_id, series_run) WHERE series_id IS NOT NULL;

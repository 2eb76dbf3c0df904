-- Journeys (docs/journeys.md): a versioned graph per app, each user's place in it as a row
-- claimed under a lease like a campaign chunk, every move and every device's answer recorded.
CREATE TABLE journeys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id       bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text,
    state        text NOT NULL DEFAULT 'draft' CHECK (state IN ('draft', 'active', 'paused', 'archived')),
    -- The latest version, and the one new entrants take (set on activation, moved by each new
    -- version after it).
    version      integer NOT NULL,
    live_version integer,
    -- The live version's entry event and goal event names, for the event intake's lookup.
    entry_event  text,
    entry_segment text,
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, name)
);
CREATE INDEX journeys_entry_idx ON journeys (app_id, entry_event) WHERE state = 'active';

CREATE TABLE journey_versions (
    journey_id  bigint NOT NULL REFERENCES journeys (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    definition  jsonb NOT NULL,
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (journey_id, version)
);

-- One entry of one user: where it stands, why and when the engine looks at it next.
CREATE TABLE journey_entries (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journey_id    bigint NOT NULL REFERENCES journeys (id) ON DELETE CASCADE,
    version       integer NOT NULL,
    app_id        bigint NOT NULL,
    -- `u:<user ID>` or `d:<device id>` for a device with no user.
    user_key      text NOT NULL,
    user_id       text,
    device_id     bigint,
    entry_number  integer NOT NULL,
    entered_at    timestamptz NOT NULL,
    -- The entry event's properties, for the templates' variables.
    properties    jsonb,
    held_out      boolean NOT NULL DEFAULT false,
    -- NULL once the entry is over.
    step          text,
    arrived_at    timestamptz NOT NULL,
    cause         text NOT NULL DEFAULT 'arrived' CHECK (cause IN ('arrived', 'due', 'matched')),
    due_at        timestamptz,
    -- What its waitFor waits for: an event's name, or the latest send opened.
    waiting_for   text,
    waiting_opened boolean NOT NULL DEFAULT false,
    -- Steps taken: a step's visit number keys its send, so a replay after a crash finds it.
    visits        integer NOT NULL DEFAULT 0,
    last_send     integer,
    outcome       text CHECK (outcome IN ('exited', 'goal', 'heldOut', 'archived', 'removed')),
    finished_at   timestamptz,
    goal_at       timestamptz,
    lease_owner   text,
    lease_until   timestamptz,
    UNIQUE (journey_id, user_key, entry_number),
    CHECK ((step IS NULL) = (outcome IS NOT NULL))
);
CREATE INDEX journey_entries_due_idx ON journey_entries (due_at) WHERE step IS NOT NULL;
CREATE INDEX journey_entries_user_idx ON journey_entries (app_id, user_key, journey_id);
CREATE INDEX journey_entries_report_idx ON journey_entries (journey_id, version, step);

-- Each move of an entry from a step, along a path.
CREATE TABLE journey_moves (
    entry_id    bigint NOT NULL REFERENCES journey_entries (id) ON DELETE CASCADE,
    visit       integer NOT NULL,
    journey_id  bigint NOT NULL,
    version     integer NOT NULL,
    step        text NOT NULL,
    path        text NOT NULL,
    next        text,
    -- Why a send step sent nothing (`noDevices`), when it did not.
    detail      text,
    moved_at    timestamptz NOT NULL,
    PRIMARY KEY (entry_id, visit)
);
CREATE INDEX journey_moves_report_idx ON journey_moves (journey_id, version, step, path);
CREATE INDEX journey_moves_next_idx ON journey_moves (journey_id, version, next);

-- The ledger of a journey's sends: a row per device, keyed by the entry and the step's visit.
CREATE TABLE journey_deliveries (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id      bigint NOT NULL,
    entry_id    bigint NOT NULL REFERENCES journey_entries (id) ON DELETE CASCADE,
    journey_id  bigint NOT NULL,
    version     integer NOT NULL,
    visit       integer NOT NULL,
    step        text NOT NULL,
    token       bytea NOT NULL,
    device_id   bigint,
    outcome     text NOT NULL,
    status      integer,
    reason      text,
    apns_id     uuid,
    language    text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    opened_at   timestamptz
);
CREATE INDEX journey_deliveries_entry_idx ON journey_deliveries (entry_id, visit);
CREATE INDEX journey_deliveries_report_idx ON journey_deliveries (journey_id, version, step);
CREATE INDEX journey_deliveries_apns_idx ON journey_deliveries (app_id, apns_id) WHERE apns_id IS NOT NULL;

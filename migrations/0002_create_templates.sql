-- Templates and their immutable, numbered versions: a campaign pins one version, so a version
-- is only ever inserted, never updated. A template is small and read by every instance; under
-- Citus both tables would be reference tables.

CREATE TABLE templates (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Also the folder name under templates/.
    name       text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    -- When the latest version was added.
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE template_versions (
    template_id      bigint NOT NULL REFERENCES templates (id),
    version          integer NOT NULL CHECK (version >= 1),
    -- The whole template document (HeraldTemplates' TemplateDocument) as JSON.
    document         jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
    -- SHA-256 of the document's canonical JSON (sorted keys, no whitespace): a sync stores a
    -- new version only when this differs from the latest version's.
    content_hash     bytea NOT NULL CHECK (octet_length(content_hash) = 32),
    -- Normalized BCP 47 tags.
    default_language text NOT NULL,
    languages        text[] NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- An API key prefix, or cli:<user> for `herald templates sync`.
    created_by       text NOT NULL,
    PRIMARY KEY (template_id, version)
);

-- A template belongs to one app or is shared by all (NULL): marketing keys scoped to some apps
-- see and use their apps' templates and the shared ones, and a campaign or send uses only its
-- own app's templates or shared ones (docs/admin.md "API keys").
ALTER TABLE templates ADD COLUMN app_id bigint REFERENCES apps (id) ON DELETE CASCADE;
CREATE INDEX templates_app_idx ON templates (app_id) WHERE app_id IS NOT NULL;

-- Every instance remembers apps for a few seconds (docs/architecture.md "What an instance
-- remembers"). A change to an app, or to its credentials, is announced on the `herald_apps`
-- channel with the app's ID when it commits, whoever makes it (an instance's API, the CLI, or
-- SQL by hand), so every listening instance forgets its copy at once. Triggers rather than
-- application code, so no writer can forget to announce.
CREATE FUNCTION herald_announce_app_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
BEGIN
    -- apps rows carry their ID as `id`, app_credentials rows as `app_id`.
    PERFORM pg_notify('herald_apps', coalesce(changed ->> 'app_id', changed ->> 'id'));
    RETURN NULL;
END
$$;

CREATE TRIGGER apps_announce_change AFTER UPDATE OR DELETE ON apps
    FOR EACH ROW EXECUTE FUNCTION herald_announce_app_change();
CREATE TRIGGER app_credentials_announce_change AFTER INSERT OR UPDATE OR DELETE ON app_credentials
    FOR EACH ROW EXECUTE FUNCTION herald_announce_app_change();

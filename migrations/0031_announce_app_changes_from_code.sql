-- App changes are announced on `herald_apps` by the code that makes them (the app repository,
-- in the change's transaction) instead of by triggers (migration 0019). On a Citus cluster
-- `apps` and `app_credentials` are reference tables, whose triggers run on every node's copy:
-- there a NOTIFY reaches no instance (they listen on the coordinator) and makes the commit
-- fail (docs/scaling.md). A change made by hand in SQL is announced with
-- `SELECT pg_notify('herald_apps', '<app id>')`; unannounced, each instance sees it once its
-- memory of the app expires (HERALD_APP_CACHE_SECONDS, 5 s by default).
DROP TRIGGER apps_announce_change ON apps;
DROP TRIGGER app_credentials_announce_change ON app_credentials;
DROP FUNCTION herald_announce_app_change();

-- A user's devices, newest first, read without visiting the others: attributing a conversion
-- by user ID takes the user's latest 20 devices (a user ID shared by thousands of devices, such
-- as a placeholder `guest`, must not cost thousands of reads per event batch), and a user's data
-- export pages through their devices by ID. The ID is never updated, so registrations stay HOT
-- updates as before; the old index on (app_id, user_id) is its prefix and goes.
CREATE INDEX devices_app_user_id_idx ON devices (app_id, user_id, id) WHERE user_id IS NOT NULL;
DROP INDEX devices_app_user_idx;

-- Endpoints for every app receive no full token and no user ID (docs/webhooks.md). They used to
-- be stored in full and stripped when sent; from now on they are stored stripped, so erasing a
-- user (docs/admin.md "Data requests") has no copy of them to find there. Existing copies are
-- stripped the same way.
UPDATE webhook_messages m SET data = m.data - 'token' - 'userID'
FROM webhook_endpoints e
WHERE e.id = m.endpoint_id AND e.app_id IS NULL AND (m.data ? 'token' OR m.data ? 'userID');

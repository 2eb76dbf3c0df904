-- People who sign in to the marketing console (docs/console.md). A user is found by email,
-- compared without case; the password is kept only as a bcrypt hash. Failed sign-ins are
-- counted on the row so that throttling holds for every instance behind a load balancer.
CREATE TABLE users (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email               text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    role                text NOT NULL CHECK (role IN ('viewer', 'marketing', 'admin')),
    password_hash       text NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    password_changed_at timestamptz NOT NULL DEFAULT now(),
    last_login_at       timestamptz,
    disabled_at         timestamptz,
    failed_logins       integer NOT NULL DEFAULT 0,
    locked_until        timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A signed-in browser. The cookie holds 256 random bits; only their SHA-256 is stored, so a
-- copy of this table opens no session. Each session has its own CSRF token for forms.
CREATE TABLE sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- The console finds a device by the last digits of its token (at least 8 hex digits, 4 bytes):
-- the index holds each token's last 4 bytes, so a lookup reads a handful of rows at any size.
CREATE INDEX devices_token_tail_idx ON devices (app_id, substring(token FROM length(token) - 3 FOR 4));

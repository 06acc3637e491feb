-- Moderation: a hidden result keeps its document in `results` but has no `entries` row, so no
-- page, list, aggregate or ranking sees it; `hidden` keeps why, and the deletion token's hash
-- its entry held, for a restore. `audit` records every moderator's action.
CREATE TABLE IF NOT EXISTS hidden (
    id          TEXT PRIMARY KEY,
    reason      TEXT NOT NULL,
    token_hash  TEXT,
    device_key  TEXT,
    hidden_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id      TEXT PRIMARY KEY,
    at      TEXT NOT NULL,
    action  TEXT NOT NULL,
    target  TEXT NOT NULL,
    reason  TEXT NOT NULL
);
-- A device key that now means another (`key` merged into `target` by a moderator, or renamed
-- by new rules): new results under it go to the target, and its pages redirect there.
CREATE TABLE IF NOT EXISTS aliases (
    key     TEXT PRIMARY KEY,
    target  TEXT NOT NULL,
    at      TEXT NOT NULL
);

-- What a site deleted or hid stays so (issue 59): a result deleted by its submitter, or hidden
-- by a moderator, leaves its id and its measurement's fingerprint here (`tombstones.rs`), and
-- a submission of either is refused, whoever sends it. A moderator's restore lifts a hidden
-- result's; a deleted one's stays.
CREATE TABLE IF NOT EXISTS tombstones (
    id          TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    buried_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tombstones_fingerprint ON tombstones (fingerprint);
-- A device a moderator hid stays hidden: a new result of it waits for a moderator (`hold.rs`)
-- until the device is restored.
CREATE TABLE IF NOT EXISTS hidden_devices (
    device_key TEXT PRIMARY KEY,
    reason     TEXT NOT NULL,
    hidden_at  TEXT NOT NULL
);

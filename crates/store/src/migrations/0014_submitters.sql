-- Who sent each result, as a site can tell without accounts (`submitter`: a keyed hash of the
-- sending address's /24 or /64, or of the submitter an installation key was first seen with),
-- so that a device's identity and medians weigh each submitter once (`aggregate.rs`); a result
-- held for a moderator's review (`held`: why; its `flag` says so too until one decides), and
-- how many submitters a device's figures come from. `installations` maps the keyed hash of an
-- installation key (`iomark submit` keeps one) to the submitter it was first seen with: a key
-- only ever merges addresses into one submitter, never splits one into several. Results saved
-- before have none: each counts as a submitter of its own, as before. SQLite has no
-- `ADD COLUMN IF NOT EXISTS`; the migrator applies this once and records it.
ALTER TABLE entries ADD COLUMN submitter TEXT;
ALTER TABLE entries ADD COLUMN held TEXT;
ALTER TABLE hidden ADD COLUMN submitter TEXT;
ALTER TABLE devices ADD COLUMN submitters BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS installations (
    key_hash  TEXT PRIMARY KEY,
    submitter TEXT NOT NULL
);

-- What the store keeps about itself (`meta`): the version of the rules that derived `entries`
-- from the documents and `devices` from `entries`, so that a store made under older rules is
-- rederived once when a newer iomark opens it (`Store::rederive`). The order results arrived
-- in (`saved_at`) decides a device's name where its results disagree, and lists the newest.
CREATE TABLE IF NOT EXISTS meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_saved_at ON results (saved_at);
-- A device's page reads all of its aggregates, in every class and scope.
CREATE INDEX IF NOT EXISTS devices_device_key ON devices (device_key);

-- Devices whose aggregates a submission left to the server's background refresh: a device
-- with many results (re-reading all of them in each submission grew with their number). A
-- row is written in the transaction that adds the result, so none is lost with the process,
-- and removed in the one that refreshes the device's aggregate in that scope.
CREATE TABLE IF NOT EXISTS stale (
    class TEXT NOT NULL,
    device_key TEXT NOT NULL,
    scope TEXT NOT NULL,
    PRIMARY KEY (class, device_key, scope)
);

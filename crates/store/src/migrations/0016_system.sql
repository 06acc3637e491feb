-- The system each result ran on (`ResultDoc::system`: its distribution and kernel to the
-- minor version), so that a device's page shows its medians by system as it does by board
-- (aggregates of scope `system:NAME`). Filled for stored results by the rules' rederivation
-- (`RULES` 8). SQLite has no `ADD COLUMN IF NOT EXISTS`; the migrator applies this once.
ALTER TABLE entries ADD COLUMN system TEXT;

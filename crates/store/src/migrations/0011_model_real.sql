-- A device's real results apart from its synthetic ones (which only the load generator makes,
-- and which never count where a device has real unflagged ones): a refresh reads only the
-- real ones, and a standing passes over the synthetic ones without looking each row up. On a
-- store of 1,000,000 synthetic results (500 a device) each submission's refresh read all 500
-- of its device's, about 10 ms in the store's one writer: 75 submissions a second
-- (bench/site-load). It begins as the index it replaces did.
CREATE INDEX IF NOT EXISTS entries_model_real ON entries (device_key, class, synthetic, id);
DROP INDEX IF EXISTS entries_model_latest;

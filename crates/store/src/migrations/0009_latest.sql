-- Where a result stands compares each group's latest results (`Store::standing`), read
-- backwards by id along these indexes: reading every result of a busy model made each
-- submission's cost grow with them (bench/busy-device). Each holds the index it replaces as
-- its beginning, so the queries those served are served as well.
CREATE INDEX IF NOT EXISTS entries_model_latest ON entries (device_key, class, id);
CREATE INDEX IF NOT EXISTS entries_kind_latest ON entries (class, synthetic, kind, board, id);
DROP INDEX IF EXISTS entries_device;
DROP INDEX IF EXISTS entries_standing;

-- A device's newest results of one class, in the order its page lists them, with what tells a
-- synthetic one: its page reads the newest 50 from this index alone and looks up only those
-- 50 rows, where it had read and sorted every one of the device's results (bench/site-load).
CREATE INDEX IF NOT EXISTS entries_device_newest ON entries (device_key, class, started_at, id, synthetic);

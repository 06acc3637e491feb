-- What a device is sold as (`iomark submit --model`, the document's `sold_as`), per result and,
-- where several results agree, per device; and every name a device's results gave it (`names`:
-- its names, what it is sold as, labels, as slugs), which a search matches word by word.
-- Filled for stored results by the rules' rederivation (`RULES` 5). One migration, one
-- transaction: SQLite has no `ADD COLUMN IF NOT EXISTS`, and the migrator records that it ran.
ALTER TABLE entries ADD COLUMN sold_as TEXT;
ALTER TABLE devices ADD COLUMN sold_as TEXT;
ALTER TABLE devices ADD COLUMN names TEXT;

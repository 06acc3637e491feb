-- A buried result's band (`tombstones/near.rs`): the sixteenth attack pass sent a deleted
-- result again, its figures nudged, under another device's name; the figures are held against
-- the newest buried results of their band too, whatever their device. Bands of results buried
-- before are filled as a store is derived anew (RULES 18).
ALTER TABLE buried_near ADD COLUMN band BIGINT;
CREATE INDEX IF NOT EXISTS buried_near_band ON buried_near (band);

-- A buried result's figures, by its device (`tombstones.rs`): the fifteenth attack pass sent a
-- deleted result again with every figure nudged by 0.2% at most, each on its own, and it was
-- taken; a submission of that device is held against each buried result's figures, one by one.
CREATE TABLE IF NOT EXISTS buried_near (
    id         TEXT PRIMARY KEY,
    device_key TEXT NOT NULL,
    figures    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS buried_near_device ON buried_near (device_key);

-- The nvme profile's own figures, ranked on its leaderboard (issue 44): SEQ128K Q32T1 and
-- RND4K Q32T16, read and write (`result::metric::METRICS`). Filled for stored results by the
-- rules' rederivation (`RULES` 7). A device page's points index holds every ranked figure
-- (migration 0013), so it is made again with these. SQLite has no `ADD COLUMN IF NOT EXISTS`;
-- the migrator applies this once and records it.
ALTER TABLE entries ADD COLUMN seq128k_q32_read DOUBLE PRECISION;
ALTER TABLE entries ADD COLUMN seq128k_q32_write DOUBLE PRECISION;
ALTER TABLE entries ADD COLUMN rnd4k_q32t16_read DOUBLE PRECISION;
ALTER TABLE entries ADD COLUMN rnd4k_q32t16_write DOUBLE PRECISION;
ALTER TABLE devices ADD COLUMN seq128k_q32_read DOUBLE PRECISION;
ALTER TABLE devices ADD COLUMN seq128k_q32_write DOUBLE PRECISION;
ALTER TABLE devices ADD COLUMN rnd4k_q32t16_read DOUBLE PRECISION;
ALTER TABLE devices ADD COLUMN rnd4k_q32t16_write DOUBLE PRECISION;
-- A leaderboard ranks by a figure only where it is there (`… IS NOT NULL`), so these indexes
-- hold only the rows that have it: most devices never have these figures (nor the pi score),
-- and a full index of each would be written at every aggregate's refresh for nothing.
CREATE INDEX IF NOT EXISTS devices_seq128k_q32_read ON devices (class, scope, seq128k_q32_read)
    WHERE seq128k_q32_read IS NOT NULL;
CREATE INDEX IF NOT EXISTS devices_seq128k_q32_write ON devices (class, scope, seq128k_q32_write)
    WHERE seq128k_q32_write IS NOT NULL;
CREATE INDEX IF NOT EXISTS devices_rnd4k_q32t16_read ON devices (class, scope, rnd4k_q32t16_read)
    WHERE rnd4k_q32t16_read IS NOT NULL;
CREATE INDEX IF NOT EXISTS devices_rnd4k_q32t16_write ON devices (class, scope, rnd4k_q32t16_write)
    WHERE rnd4k_q32t16_write IS NOT NULL;
DROP INDEX IF EXISTS devices_score;
CREATE INDEX IF NOT EXISTS devices_score ON devices (class, scope, score) WHERE score IS NOT NULL;
DROP INDEX IF EXISTS entries_device_points;
CREATE INDEX IF NOT EXISTS entries_device_points ON entries (device_key, class, started_at, id,
    synthetic, flag, headline, seq1m_q8_read, seq1m_q8_write, seq1m_q1_read, seq1m_q1_write,
    rnd4k_q32_read, rnd4k_q32_write, rnd4k_q1_read, rnd4k_q1_write, score, seq128k_q32_read,
    seq128k_q32_write, rnd4k_q32t16_read, rnd4k_q32t16_write);

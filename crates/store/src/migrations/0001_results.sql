-- One row per run. The whole result document is kept as text (`document`), exactly as saved;
-- the other columns are copies of the fields people filter and sort by, indexed.
-- Written in SQL that SQLite and PostgreSQL both accept, so one schema serves the local
-- history and a shared server.
CREATE TABLE IF NOT EXISTS results (
    id                 TEXT PRIMARY KEY,
    schema_name        TEXT NOT NULL,
    tool_version       TEXT NOT NULL,
    started_at         TEXT NOT NULL,
    saved_at           TEXT NOT NULL,
    label              TEXT,
    profile            TEXT NOT NULL,
    host_board         TEXT,
    host_arch          TEXT,
    device_model       TEXT,
    device_transport   TEXT,
    filesystem         TEXT,
    direct_io          BIGINT NOT NULL,
    seq_read_mb_per_s  DOUBLE PRECISION,
    seq_write_mb_per_s DOUBLE PRECISION,
    rnd_read_iops      DOUBLE PRECISION,
    rnd_write_iops     DOUBLE PRECISION,
    score_total        BIGINT,
    document           TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_started_at ON results (started_at);
CREATE INDEX IF NOT EXISTS results_profile ON results (profile);
CREATE INDEX IF NOT EXISTS results_device_model ON results (device_model);
CREATE INDEX IF NOT EXISTS results_device_transport ON results (device_transport);
CREATE INDEX IF NOT EXISTS results_seq_read ON results (seq_read_mb_per_s);
CREATE INDEX IF NOT EXISTS results_rnd_read ON results (rnd_read_iops);
CREATE INDEX IF NOT EXISTS results_score_total ON results (score_total);

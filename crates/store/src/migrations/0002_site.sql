-- What a results site needs beside each document: the facts it is ranked by (`entries`, one row
-- per result, derived from its document by `ResultDoc::identity`), the per-device aggregates a
-- leaderboard reads (`devices`, one row per device model and class of comparable results,
-- refreshed in the transaction that adds or removes one of its results), and the receipts of
-- results this store's owner submitted to a site (`submissions`).
CREATE TABLE IF NOT EXISTS entries (
    id              TEXT PRIMARY KEY,
    device_key      TEXT,
    device_name     TEXT NOT NULL,
    kind            TEXT NOT NULL,
    transport       TEXT,
    class           TEXT NOT NULL,
    board           TEXT,
    filesystem      TEXT,
    capacity_gb     BIGINT,
    price_usd       DOUBLE PRECISION,
    flag            TEXT,
    synthetic       BIGINT NOT NULL,
    token_hash      TEXT,
    started_at      TEXT NOT NULL,
    label           TEXT,
    seq1m_q8_read   DOUBLE PRECISION,
    seq1m_q8_write  DOUBLE PRECISION,
    seq1m_q1_read   DOUBLE PRECISION,
    seq1m_q1_write  DOUBLE PRECISION,
    rnd4k_q32_read  DOUBLE PRECISION,
    rnd4k_q32_write DOUBLE PRECISION,
    rnd4k_q1_read   DOUBLE PRECISION,
    rnd4k_q1_write  DOUBLE PRECISION,
    score           DOUBLE PRECISION
);
CREATE INDEX IF NOT EXISTS entries_device ON entries (device_key, class);
CREATE INDEX IF NOT EXISTS entries_class_board ON entries (class, board);
CREATE INDEX IF NOT EXISTS entries_class_filesystem ON entries (class, filesystem);
CREATE INDEX IF NOT EXISTS entries_started_at ON entries (started_at);

-- One row per class of comparable results, scope and device. The scope is '' for all of a
-- device's results, 'board:NAME' for those measured on one board, 'fs:NAME' for one
-- filesystem: a leaderboard filtered by one of them reads its own rows, in the order of the
-- index on its class, scope and figure.
CREATE TABLE IF NOT EXISTS devices (
    class           TEXT NOT NULL,
    scope           TEXT NOT NULL,
    device_key      TEXT NOT NULL,
    device_name     TEXT NOT NULL,
    kind            TEXT NOT NULL,
    transport       TEXT,
    capacity_gb     BIGINT,
    results         BIGINT NOT NULL,
    synthetic       BIGINT NOT NULL,
    price_usd       DOUBLE PRECISION,
    seq1m_q8_read   DOUBLE PRECISION,
    seq1m_q8_write  DOUBLE PRECISION,
    seq1m_q1_read   DOUBLE PRECISION,
    seq1m_q1_write  DOUBLE PRECISION,
    rnd4k_q32_read  DOUBLE PRECISION,
    rnd4k_q32_write DOUBLE PRECISION,
    rnd4k_q1_read   DOUBLE PRECISION,
    rnd4k_q1_write  DOUBLE PRECISION,
    score           DOUBLE PRECISION,
    stats           TEXT NOT NULL,
    PRIMARY KEY (class, scope, device_key)
);
CREATE INDEX IF NOT EXISTS devices_seq1m_q8_read ON devices (class, scope, seq1m_q8_read);
CREATE INDEX IF NOT EXISTS devices_seq1m_q8_write ON devices (class, scope, seq1m_q8_write);
CREATE INDEX IF NOT EXISTS devices_seq1m_q1_read ON devices (class, scope, seq1m_q1_read);
CREATE INDEX IF NOT EXISTS devices_seq1m_q1_write ON devices (class, scope, seq1m_q1_write);
CREATE INDEX IF NOT EXISTS devices_rnd4k_q32_read ON devices (class, scope, rnd4k_q32_read);
CREATE INDEX IF NOT EXISTS devices_rnd4k_q32_write ON devices (class, scope, rnd4k_q32_write);
CREATE INDEX IF NOT EXISTS devices_rnd4k_q1_read ON devices (class, scope, rnd4k_q1_read);
CREATE INDEX IF NOT EXISTS devices_rnd4k_q1_write ON devices (class, scope, rnd4k_q1_write);
CREATE INDEX IF NOT EXISTS devices_score ON devices (class, scope, score);

CREATE TABLE IF NOT EXISTS submissions (
    id           TEXT NOT NULL,
    server       TEXT NOT NULL,
    url          TEXT NOT NULL,
    token        TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    PRIMARY KEY (id, server)
);

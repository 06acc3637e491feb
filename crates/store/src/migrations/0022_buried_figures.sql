-- A deleted or hidden result's figures, each on its own (issue 59, seventh attack pass: a copy
-- with its rate and the ends of its latencies moved by half a percent escaped every print of
-- whole tests): each latency as a share of its test's mean, to four digits, hashed. A
-- submission half of whose shares are one buried result's is refused (`tombstones.rs`,
-- `figure_prints`).
CREATE TABLE IF NOT EXISTS buried_figures (
    print TEXT NOT NULL,
    id    TEXT NOT NULL,
    PRIMARY KEY (print, id)
);
CREATE INDEX IF NOT EXISTS buried_figures_id ON buried_figures (id);

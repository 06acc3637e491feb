-- A deleted or hidden result's tests, each by pairs of its figures (issue 59, second attack
-- pass: a copy with one test dropped, or its model renamed, had another fingerprint and was
-- taken). A submission any of whose tests matches a buried test in six of its eight figures
-- is refused (`tombstones.rs`).
CREATE TABLE IF NOT EXISTS buried_tests (
    print TEXT PRIMARY KEY,
    id    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS buried_tests_id ON buried_tests (id);

-- Where a submitted result stands reads its class's ranked real results of one kind on one
-- board (`Store::standing`): this index finds exactly those, where the one on class and board
-- visited every result of the board to look at each one's kind and synthetic mark (about
-- 16,000 rows a submission in bench/site-load's store of 100,000).
CREATE INDEX IF NOT EXISTS entries_standing ON entries (class, synthetic, kind, board);

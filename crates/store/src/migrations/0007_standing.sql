-- Where a submitted result stands reads its class's ranked real results of one kind on one
-- board (`Store::standing`): this index finds exactly those, where the one on class and board
-- visited every result of the board to look at each one's kind and synthetic mark (a sixth
-- of bench/site-load's 100,000 results, which it spreads over six boards).
CREATE INDEX IF NOT EXISTS entries_standing ON entries (class, synthetic, kind, board);

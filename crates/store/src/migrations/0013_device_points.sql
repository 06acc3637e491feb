-- A device's page reads one figure, the flag and the headline of each of a class's newest
-- results (its distribution, SD verdicts, where a viewer's result stands) from this index
-- alone: along 0012's it looked up each result's row, one page read each, scattered over a
-- large store (a page of 500 results at 1,000,000: wrk's p99 over the bench's pages 78 ms
-- along 0012's, 46 ms along this one; bench/site-load). It holds every figure a page may
-- draw by (the columns of METRICS), so it also serves the newest 50 that 0012's index gave.
CREATE INDEX IF NOT EXISTS entries_device_points ON entries (device_key, class, started_at, id,
    synthetic, flag, headline, seq1m_q8_read, seq1m_q8_write, seq1m_q1_read, seq1m_q1_write,
    rnd4k_q32_read, rnd4k_q32_write, rnd4k_q1_read, rnd4k_q1_write, score);
DROP INDEX IF EXISTS entries_device_newest;

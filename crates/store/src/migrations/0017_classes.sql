-- The SD classes a device's submitters find it meets (`aggregate::classes_met`: each
-- submitter's most common, then the most submitters'), for the sdcard leaderboard's column.
-- Filled for stored devices by the rules' rederivation (`RULES` 10).
ALTER TABLE devices ADD COLUMN classes TEXT;

-- A result's headline beyond the standard figures, in a few words (`ResultDoc::headline`: the
-- pi score, the SD classes met, a cliff, a saturation point), for history and the site's lists.
-- Filled for results saved before it by the rules' rederivation (`RULES` 4). SQLite has no
-- `ADD COLUMN IF NOT EXISTS`; the migrator applies this once and records it.
ALTER TABLE entries ADD COLUMN headline TEXT;

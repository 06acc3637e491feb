-- Health checks their owners chose to share (`iomark health --share`): a row per check, of the
-- card whose key hashes to `card` (the key itself stays in the card's own folder, as a deletion
-- token does with its submitter). A card's checks are kept in the order they were made, each
-- with the bytes its device wrote since the card's first shared check (`written_total`,
-- from the checks' daily write loads), and filed under the device of the card's first check.
-- What a device page says of its cards is read from these (`cards.rs`).
CREATE TABLE IF NOT EXISTS card_checks (
    id            TEXT PRIMARY KEY,
    card          TEXT NOT NULL,
    device_key    TEXT NOT NULL,
    device_name   TEXT NOT NULL,
    checked_s     BIGINT NOT NULL,
    verdict       TEXT NOT NULL,
    written_total BIGINT,
    submitter     TEXT,
    received_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS card_checks_device ON card_checks (device_key, card);
CREATE INDEX IF NOT EXISTS card_checks_card ON card_checks (card, checked_s);

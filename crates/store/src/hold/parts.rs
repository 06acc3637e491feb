//! A hidden device's results sent under a part number alone (`Samsung MZ-76Q1T0BW` for a
//! hidden `Samsung SSD 860 QVO 1TB`): `hold.rs` holds them while it is hidden.

use super::model_code;
use super::product::Product;

/// Whether `key` names `hidden`'s maker and capacity by a part number alone (`Samsung
/// MZ-76Q1T0BW`, `MZ-76Q1T0` for a hidden `Samsung SSD 860 QVO 1TB`: the twelfth attack pass):
/// one word of a part number's shape (letters and digits taking turns three times or more:
/// `76q1t0bw`, `ct2000mx500ssd1`; not `990`, `evo`, `bx500`, `sn850x`), after at most a
/// maker's part-number prefix, and no other word; its maker said or read from that prefix. A
/// part number is no list's, so any of the maker's of that capacity so named waits while one
/// is hidden (the thirteenth attack pass: a rule that took any two words for one hid every
/// Samsung of the size).
pub(super) fn by_part_number(hidden: &str, key: &str) -> bool {
    // Makers' part-number prefixes, as a key writes them.
    const CODED: [(&str, &str); 7] = [
        ("mz", "samsung"),
        ("mu", "samsung"),
        ("ct", "crucial"),
        ("wds", "wd"),
        ("sdss", "sandisk"),
        ("sa400", "kingston"),
        ("skc", "kingston"),
    ];
    let (h, k) = (Product::of(hidden), Product::of(key));
    // A drive's bus put where its maker goes (`ATA`) names nothing.
    let mut words: Vec<&str> = k
        .written
        .iter()
        .map(String::as_str)
        .filter(|w| !["ata", "scsi", "usb"].contains(w))
        .collect();
    let turns = |code: &str| {
        code.chars()
            .zip(code.chars().skip(1))
            .filter(|(a, b)| a.is_ascii_digit() != b.is_ascii_digit())
            .count()
    };
    // A maker's prefix and its code are one word (`MZ-76Q2T0B/AM`: the nineteenth).
    let merged;
    if words.len() >= 2 && CODED.iter().any(|(p, _)| *p == words[0]) {
        merged = format!("{}{}", words[0], words[1]);
        words.splice(0..2, [merged.as_str()]);
    }
    // A part number's suffix after its dash (`MZVL21T0HCLR-00B00`, an OEM's: the seventeenth
    // attack pass ranked it while a Samsung of its size was hidden; `-RNNNG`, the eighteenth),
    // six characters at most and no word of a line.
    while words.len() > 1
        && turns(words[0]) >= 3
        && words
            .last()
            .is_some_and(|w| w.len() <= 6 && !super::VARIANT.contains(w))
    {
        words.pop();
    }
    // (A prefix and its code were joined above.)
    let [code] = words[..] else {
        return false;
    };
    let code = code.to_string();
    let turns = turns(&code);
    let coded = CODED
        .iter()
        .filter(|(prefix, _)| code.starts_with(prefix))
        .map(|(_, maker)| maker.to_string());
    let makers: std::collections::BTreeSet<String> =
        k.makers.iter().cloned().chain(coded).collect();
    // Or of no maker said, holding the hidden device's model number (`LNM790X002T-RNNNG` for a
    // hidden `Lexar NM790 2TB`: the eighteenth attack pass).
    let holds_number = h
        .written
        .iter()
        .any(|w| model_code(w) && code.contains(w.as_str()));
    turns >= 3
        && model_code(&code)
        && h.written.concat() != code
        && (!h.makers.is_disjoint(&makers) || (holds_number && makers.is_empty()))
        && !h.gb.is_empty()
        && !h.gb.is_disjoint(&k.gb)
}

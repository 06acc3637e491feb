//! Names in any script, against the look-alikes the attack passes sent.

use super::*;

/// Issue 59's second attack pass: words of other scripts written wholly in letters that
/// look Latin, in lower case or Cherokee, and letters drawn as bars or as nothing, made
/// devices of their own. Each is a look-alike keyed as the word it imitates, or (drawn as
/// nothing, dotless) the same device.
#[test]
fn look_alikes_in_any_case_and_script_are_keyed_as_what_they_imitate() {
    let key = |name: &str| slug(&unconfuse(&normalise(name)));
    for (name, real) in [
        (
            "\u{43a}\u{456}\u{43e}\u{445}\u{456}\u{430} EXCERIA",
            "kioxia-exceria",
        ),
        ("\u{13b3}\u{13a0} Blue SN570", "wd-blue-sn570"),
        ("\u{ab83}\u{ab70} Blue SN570", "wd-blue-sn570"),
        // Canadian Syllabics, whose W Unicode draws as Cyrillic's omega (the fifth pass).
        ("\u{15ef}\u{15ea} Black SN850X", "wd-black-sn850x"),
        (
            "\u{13e6}\u{13a5}\u{13be}X\u{13a5}\u{13aa} EXCERIA",
            "kioxia-exceria",
        ),
    ] {
        assert!(look_alike_word(&normalise(name)).is_some(), "{name}");
        assert_eq!(key(name), real, "{name}");
    }
    assert!(look_alike_word("K\u{1c0}OX\u{1c0}A EXCERIA").is_some());
    // Drawn as a blank, seen as a space (issue 59's third attack pass: a Hangul filler
    // between two words made `samsungssd`).
    assert_eq!(key("KIO\u{2800}XIA EXCERIA"), "kio-xia-exceria");
    assert_eq!(key("Samsung\u{3164}SSD 870 EVO"), "samsung-ssd-870-evo");
    // Latin letters drawn as others, a Greek word, a digit of another script.
    assert_eq!(key("Samsun\u{261} S\u{251}msung"), "samsung-samsung");
    assert!(look_alike_word("Samsung SSD 870 \u{3b5}\u{3bd}\u{3bf}").is_some());
    assert_eq!(
        key("Samsung SSD 870 \u{3b5}\u{3bd}\u{3bf}"),
        "samsung-ssd-870-evo"
    );
    assert_eq!(key("Samsung SSD 87\u{966} EVO"), "samsung-ssd-870-evo");
    // A zero for an O, an O for a zero: one name to a reader.
    assert_eq!(
        skeleton("samsung-ssd-870-ev0-500gb"),
        skeleton("samsung-ssd-87o-evo-5oogb")
    );
    assert_ne!(
        skeleton("samsung-ssd-870-evo"),
        skeleton("samsung-ssd-860-evo")
    );
    assert_eq!(key("k\u{131}ox\u{131}a EXCERIA"), "kioxia-exceria");
    // A Latin letter drawn as another that no table here names: TR39's (blackletter e).
    assert_eq!(key("Samsung SSD 870 \u{ab32}VO"), "samsung-ssd-870-evo");
    // Whole words in Lisu, which no list named (the fourth attack pass): Unicode's
    // confusables; and a five for an S.
    let lisu =
        "\u{a4e2}\u{a4ee}\u{a4df}\u{a4e2}\u{a4f4}\u{a4e0}\u{a4d6} SSD 870 \u{a4f0}\u{a4e6}\u{a4f3}";
    assert!(look_alike_word(&normalise(lisu)).is_some());
    assert_eq!(key(lisu), "samsung-ssd-870-evo");
    assert_eq!(
        skeleton("5amsung-ssd-870-evo-264gb"),
        skeleton("samsung-ssd-870-evo-264gb")
    );
    // A word of its own script is a word: Тошиба, or a name written all in Cyrillic.
    assert!(look_alike_word("\u{422}\u{43e}\u{448}\u{438}\u{431}\u{430} 32GB").is_none());
    assert!(look_alike_word("\u{424}\u{43b}\u{435}\u{448}\u{43a}\u{430} Kingston").is_none());
}

/// Issue 59: a letter from Armenian or Cherokee, or a variation selector inside a word,
/// made a twin of a device's name that ranked above it; only Latin, Greek and Cyrillic
/// mixed were caught.
#[test]
fn a_word_of_mixed_scripts_is_a_look_alike_whatever_the_scripts() {
    for fake in [
        "SanDisk Extrem\u{0435}", // a Cyrillic е
        "Samsung EV\u{0555}",     // an Armenian Օ
        "\u{13da}anDisk Ultra",   // a Cherokee Ꮪ
        "Kingst\u{03bf}n",        // a Greek ο
        "Ultra\u{0585}",          // an Armenian օ
    ] {
        assert!(look_alike_word(fake).is_some(), "{fake}");
    }
    for real in [
        "SanDisk Extreme PRO",
        "Тошиба 64GB",
        "金士顿 A400固态",
        "東芝のSSD",
        "삼성EVO",
        "Ελληνικά",
        "Samsung 980 PRO",
    ] {
        assert_eq!(look_alike_word(real), None, "{real}");
    }
    // A variation selector or a tag inside a word is no part of the name.
    assert_eq!(normalise("Extr\u{fe0f}eme"), "Extreme");
    assert_eq!(normalise("Ult\u{e0041}ra"), "Ultra");
    assert_eq!(slug("SanDisk Extr\u{fe00}eme"), slug("SanDisk Extreme"));
    // A whole word of Greek or Cyrillic letters that look Latin, in a Latin name.
    assert!(look_alike_word("Samsung SSD 860 \u{0415}\u{0474}\u{041e}").is_some());
    assert!(look_alike_word("Samsung SSD 860 \u{0395}\u{039d}\u{039f}").is_some());
    assert_eq!(look_alike_word("Тошиба 64GB"), None);
    assert_eq!(look_alike_word("ΕΝΟ"), None, "a Greek name alone is a name");
    // Marks on letters and small capitals are no part of a key.
    for twin in [
        "Samsung 860 \u{1eb8}VO",
        "Samsung 860 E\u{0336}VO",
        "Samsung 860 ᴇᴠᴏ",
    ] {
        assert_eq!(slug(twin), slug("Samsung 860 EVO"), "{twin}");
    }
    assert_eq!(slug("Café"), "cafe");
}

/// The fifth attack pass: `VVD` for WD ranked as a twin, and `SN850X™` keyed `sn850xtm`.
#[test]
fn two_vs_read_as_a_w_and_a_trade_mark_is_no_part_of_a_key() {
    assert_eq!(skeleton("vvd-black-sn850x"), skeleton("wd-black-sn850x"));
    assert_eq!(slug("WD Black SN850X™ 2TB"), "wd-black-sn850x-2tb");
    assert_eq!(slug("Samsung® 990 PRO"), "samsung-990-pro");
}

/// The sixth attack pass: digits for letters, `cl` for `d`, a bar or a bang for a letter, a
/// letter with a stroke, and a sign in brackets made twins of real devices.
#[test]
fn digits_bars_strokes_and_signs_read_as_the_letters_they_imitate() {
    for (fake, real) in [
        ("s4msung", "samsung"),
        ("870-3vo", "870-evo"),
        ("beas7", "beast"),
        ("kin9ston", "kingston"),
        ("bl4ck", "black"),
        ("wcl-black", "wd-black"),
    ] {
        assert_eq!(skeleton(fake), skeleton(real), "{fake}");
    }
    // Model numbers still differ from each other.
    assert_ne!(skeleton("960-pro"), skeleton("990-pro"));
    assert_ne!(skeleton("860-evo"), skeleton("870-evo"));
    for (name, key) in [
        ("WD B|ack SN770", "wd-black-sn770"),
        ("K!ngston A400", "kingston-a400"),
        ("Kingst\u{f8}n A400", "kingston-a400"),
        ("Kin\u{1e5}ston A400", "kingston-a400"),
        ("Kin\u{a7a1}ston A400", "kingston-a400"),
        ("Samsung(TM) 870 EVO", "samsung-870-evo"),
        ("Samsung \u{24c7} 870 EVO", "samsung-870-evo"),
    ] {
        assert_eq!(slug(name), key, "{name}");
    }
}

/// The eighth attack pass: `970 EVO+` was filed under the 970 EVO; `PRQ` read as `PRO`.
#[test]
fn a_plus_sign_is_the_word_plus_and_a_q_reads_as_an_o() {
    assert_eq!(
        slug("Samsung SSD 970 EVO+ 1TB"),
        "samsung-ssd-970-evo-plus-1tb"
    );
    assert_eq!(
        slug("Samsung SSD 970 EVO Plus 1TB"),
        "samsung-ssd-970-evo-plus-1tb"
    );
    assert_eq!(slug("C++ + 1"), "c-plus-1");
    assert_eq!(skeleton("990-prq"), skeleton("990-pro"));
}

/// The eighteenth attack pass ranked `Samsung SSD 990 PR〇 2TB` (an ideographic zero for the
/// O) beside the real one: it keys as the real one.
#[test]
fn an_ideographic_zero_is_an_o() {
    assert_eq!(
        slug("Samsung SSD 990 PR\u{3007} 2TB"),
        slug("Samsung SSD 990 PRO 2TB")
    );
}

//! Names as people write them and as a site compares them, in any script: compatibility forms
//! folded, invisible characters removed, look-alike letters of other scripts seen through,
//! filler words that name no maker recognised, and a key (`slug`) of letters and digits.

mod disguised;
mod printable;

use printable::escaped;
pub use printable::printable;

/// `value` with every text in it as a result may hold it: control characters shown escaped
/// (as [`printable`] shows them; marks that reorder text are kept for [`normalise`] to remove
/// from names, and a page shows them as marks) and each text cut to [`super::document_error::MAX_TEXT_CHARS`]
/// characters. What the probe reads comes from devices and firmware nobody vetted (a USB
/// stick names itself); so cleaned, a terminal shows it without obeying it, and a result
/// holding it is one iomark and its site accept.
pub fn fit_text<T>(value: T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    fn fit(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::String(text) => {
                let most = super::document_error::MAX_TEXT_CHARS;
                let fitted: String = escaped(text, char::is_control).chars().take(most).collect();
                let changed = fitted != *text;
                *text = fitted;
                changed
            }
            serde_json::Value::Array(items) => items.iter_mut().fold(false, |c, v| fit(v) | c),
            serde_json::Value::Object(map) => map.values_mut().fold(false, |c, v| fit(v) | c),
            _ => false,
        }
    }
    let Ok(mut json) = serde_json::to_value(&value) else {
        return value;
    };
    if !fit(&mut json) {
        return value;
    }
    serde_json::from_value(json).unwrap_or(value)
}

/// Text as a name is compared and shown: compatibility forms folded (NFKC: full-width
/// letters become letters), invisible format characters (bidirectional overrides, zero-width
/// spaces and joiners) removed, runs of spaces one space.
pub fn normalise(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    // Signs before NFKC, which makes `Ⓡ` an R and `™` a TM.
    let signed = without_signs(&seen(text));
    let folded = without_signs(&seen(&signed.nfkc().collect::<String>()));
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` less a trade mark's or copyright's sign spelt in brackets, `(TM)`, `(R)`, `(C)` in any
/// case: no part of a name (the sixth attack pass ranked `Samsung(TM)` as a twin).
fn without_signs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('(') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let sign = ["(tm)", "(r)", "(c)"].into_iter().find(|s| {
            tail.get(..s.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(s))
        });
        match sign {
            Some(sign) => rest = &tail[sign.len()..],
            None => {
                out.push('(');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` as it is seen: the characters drawn as a blank (the Hangul fillers, the braille
/// blank) a space, every other invisible character (`is_invisible`) and a trade mark's sign
/// gone. A filler between
/// two words made `Samsung<filler>SSD` a device of its own, keyed `samsungssd` (issue 59's
/// third attack pass): it is seen as a space, so it is one.
pub fn seen(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{2800}' | '\u{1d159}' => {
                Some(' ')
            }
            c if is_invisible(c) => None,
            // A trade mark's sign is no part of a name (`SN850X™` was keyed `sn850xtm`, the
            // fifth attack pass).
            '™' | '®' | '©' | '℠' | 'Ⓡ' | 'ⓡ' | 'Ⓒ' | 'ⓒ' => None,
            c => Some(c),
        })
        .collect()
}

/// Characters that change how text is shown or compared without being seen: the
/// bidirectional controls, zero-width spaces and joiners, the word joiner, the byte-order mark,
/// and the rest of Unicode's default-ignorable code points (variation selectors, Hangul
/// fillers, tags): a variation selector inside a word made a twin of a device's name (issue
/// 59). And the blanks that are drawn as nothing.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}'
        | '\u{17b5}' | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}'
        | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}'
        // Drawn as a blank though no format character (`seen` makes them a space).
        | '\u{2800}' | '\u{1d159}')
}

/// A letter's script, as far as telling names apart needs: the scripts whose mixes are
/// allowed, by their blocks, and any other letter by its block of 128 code points (a script of
/// its own: Armenian, Cherokee, Georgian… each differ from Latin, and from each other); digits,
/// marks and punctuation have none. Unicode's Script property, without its 15 KB table.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Script {
    Latin,
    Han,
    Hiragana,
    Katakana,
    Bopomofo,
    Hangul,
    Block(u32),
}

fn script(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match u32::from(c) {
        0x41..=0x5a
        | 0x61..=0x7a
        | 0xaa
        | 0xba
        | 0xc0..=0x24f
        | 0x250..=0x2af
        | 0x1d00..=0x1dbf
        | 0x1e00..=0x1eff
        | 0x2c60..=0x2c7f
        | 0xa720..=0xa7ff
        | 0xab30..=0xab6f
        | 0xff21..=0xff3a
        | 0xff41..=0xff5a => Script::Latin,
        0x2e80..=0x2fdf
        | 0x3005
        | 0x3007
        | 0x3021..=0x3029
        | 0x3038..=0x303b
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xf900..=0xfaff
        | 0x20000..=0x3ffff => Script::Han,
        0x3041..=0x309f => Script::Hiragana,
        0x30a0..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => Script::Katakana,
        0x3100..=0x312f | 0x31a0..=0x31bf => Script::Bopomofo,
        0x1100..=0x11ff | 0x3130..=0x318f | 0xa960..=0xa97f | 0xac00..=0xd7ff | 0xffa0..=0xffdf => {
            Script::Hangul
        }
        // Greek and Coptic, Cyrillic and its supplement: one block each, as the rest.
        0x370..=0x3ff | 0x1f00..=0x1fff => Script::Block(0x370),
        0x400..=0x52f | 0x1c80..=0x1c8f | 0x2de0..=0x2dff | 0xa640..=0xa69f => Script::Block(0x400),
        other => Script::Block(other >> 7),
    })
}

/// The scripts one word may mix and still be one name, as Unicode's security mechanisms
/// allow at their "highly restrictive" level (TR39): Latin with Han and the Japanese kana, or
/// with Han and Bopomofo, or with Han and Hangul (`A400固态`, `SSDの`). Any other mix is a
/// look-alike (`EVО` with a Cyrillic О, `Extrеme` with an Armenian or Cherokee letter).
fn one_name(scripts: &[Script]) -> bool {
    use Script::{Bopomofo, Han, Hangul, Hiragana, Katakana, Latin};
    let within = |allowed: &[Script]| scripts.iter().all(|s| allowed.contains(s));
    scripts.len() < 2
        || within(&[Latin, Han, Hiragana, Katakana])
        || within(&[Latin, Han, Bopomofo])
        || within(&[Latin, Han, Hangul])
}

/// The first word of `text` whose letters come from scripts no one name mixes ([`one_name`]):
/// a name written in one script has none (Тошиба is a real word; EVО is not).
pub(super) fn look_alike_word(text: &str) -> Option<&str> {
    if let Some(word) = disguised::disguised_word(text, plain_letter) {
        return Some(word);
    }
    let latin = latin_word(text);
    text.split(|c: char| !c.is_alphanumeric()).find(|word| {
        let mut scripts: Vec<Script> = Vec::new();
        for script in word.chars().filter_map(script) {
            if !scripts.contains(&script) {
                scripts.push(script);
            }
        }
        // The click letters (`ǀ ǁ ǂ ǃ`) are drawn as bars and marks: in a word beside other
        // letters, an I or an l in disguise (`KǀOXǀA`).
        let click = word.chars().any(|c| ('\u{1c0}'..='\u{1c3}').contains(&c));
        !one_name(&scripts)
            || (latin && dressed_as_latin(word))
            || (click && word.chars().count() > 1)
    })
}

/// Whether `text` has a word of Latin letters.
fn latin_word(text: &str) -> bool {
    text.chars().any(|c| script(c) == Some(Script::Latin))
}

/// Whether `word` is written wholly in letters of another script that each look like a Latin
/// one (`ЕѴО`, `ΕΝΟ`, `кіохіа`, Cherokee `ᎳᎠ`): in a name of Latin words, a look-alike of a
/// Latin word, whole (issue 59's attack passes ranked `Samsung SSD 860 ЕѴО` as a twin of the
/// EVO, then `кіохіа EXCERIA` and `ᎳᎠ Blue SN570` as devices of their own).
fn dressed_as_latin(word: &str) -> bool {
    let mut letters = word.chars().filter(|c| c.is_alphabetic()).peekable();
    letters.peek().is_some()
        && letters.all(|c| script(c) != Some(Script::Latin) && like(c).is_some())
}

/// The Latin letter or digit `c`, of another script, looks like: [`LIKE`]'s, else Unicode's
/// confusables (TR39: the prototype a character is drawn as) where that is one ASCII letter or
/// digit. The fourth attack pass wrote `SAMSUNG` and `EVO` in Lisu letters (`ꓢꓮꓟꓢꓴꓠꓖ`),
/// which no list of scripts named; Unicode's table names them all.
fn like(c: char) -> Option<char> {
    if c.is_ascii() {
        return None;
    }
    if let Some((_, to)) = LIKE.iter().find(|(from, _)| *from == c) {
        return Some(*to);
    }
    let mut text = [0; 4];
    let mut prototype = unicode_security::skeleton(c.encode_utf8(&mut text));
    match (prototype.next(), prototype.next()) {
        (Some(to), None) if to.is_ascii_alphanumeric() => Some(to),
        // A prototype that is itself another script's look-alike: Canadian Syllabics' `ᗯ` is
        // drawn as Cyrillic's `Ѡ`, which is a W (the fifth attack pass wrote WD as `ᗯᗪ`).
        (Some(to), None) if to != c => LIKE.iter().find(|(from, _)| *from == to).map(|l| l.1),
        // A letter drawn as an ASCII one with a mark on it (`ø` as `o` and a stroke, `ǥ`):
        // that letter (the sixth attack pass's `Kingstøn`, `Kinǥston`).
        (Some(to), Some(mark)) if to.is_ascii_alphanumeric() && is_mark(mark) => {
            prototype.all(is_mark).then_some(to)
        }
        _ => None,
    }
}

/// Letters of other scripts (Greek, Cyrillic, Armenian, Cherokee in both cases) that look like
/// a Latin letter or its small capital, and that letter (after Unicode's confusables, for the
/// letters a name can hide).
#[rustfmt::skip]
const LIKE: &[(char, char)] = &[
    ('А', 'A'), ('В', 'B'), ('Е', 'E'), ('К', 'K'), ('М', 'M'), ('Н', 'H'), ('О', 'O'), ('Р', 'P'),
    ('С', 'C'), ('Т', 'T'), ('Х', 'X'), ('У', 'Y'), ('І', 'I'), ('Ј', 'J'), ('Ѕ', 'S'), ('а', 'a'),
    ('е', 'e'), ('о', 'o'), ('р', 'p'), ('с', 'c'), ('у', 'y'), ('х', 'x'), ('і', 'i'), ('ј', 'j'),
    ('ѕ', 's'), ('Α', 'A'), ('Β', 'B'), ('Ε', 'E'), ('Ζ', 'Z'), ('Η', 'H'), ('Ι', 'I'), ('Κ', 'K'),
    ('Μ', 'M'), ('Ν', 'N'), ('Ο', 'O'), ('Ρ', 'P'), ('Τ', 'T'), ('Υ', 'Y'), ('Χ', 'X'), ('ο', 'o'),
    ('ν', 'v'), ('ι', 'i'), ('κ', 'k'), ('ρ', 'p'), ('Ѵ', 'V'), ('ѵ', 'v'), ('к', 'k'), ('м', 'm'),
    ('Ѡ', 'W'), ('ѡ', 'w'),
    ('н', 'h'), ('т', 't'), ('в', 'b'), ('һ', 'h'), ('ԁ', 'd'), ('ԛ', 'q'), ('ԝ', 'w'), ('ӏ', 'l'),
    ('ү', 'y'), ('Ӏ', 'I'), ('Ү', 'Y'), ('Һ', 'H'), ('Ԛ', 'Q'), ('Ԝ', 'W'), ('α', 'a'), ('γ', 'y'),
    ('υ', 'u'), ('χ', 'x'), ('օ', 'o'), ('ս', 'u'), ('ո', 'n'), ('հ', 'h'), ('ց', 'g'), ('զ', 'q'),
    ('Տ', 'S'), ('Ս', 'U'), ('Օ', 'O'), ('Ꭰ', 'D'), ('ꭰ', 'd'), ('Ꭱ', 'R'), ('ꭱ', 'r'), ('Ꭲ', 'T'),
    ('Ꭵ', 'i'), ('ꭵ', 'i'), ('ꭲ', 't'), ('Ꭹ', 'Y'), ('ꭹ', 'y'), ('Ꭺ', 'A'), ('ꭺ', 'a'), ('Ꭻ', 'J'),
    ('ꭻ', 'j'), ('Ꭼ', 'E'), ('ꭼ', 'e'), ('Ꮃ', 'W'), ('ꮃ', 'w'), ('Ꮇ', 'M'), ('ꮇ', 'm'), ('Ꮋ', 'H'),
    ('ꮋ', 'h'), ('Ꮍ', 'Y'), ('Ꮎ', 'O'), ('ꮎ', 'o'), ('ꮍ', 'y'), ('Ꮐ', 'G'), ('ꮐ', 'g'), ('Ꮒ', 'h'),
    ('ꮒ', 'h'), ('Ꮓ', 'Z'), ('ꮓ', 'z'), ('Ꮟ', 'b'), ('ꮟ', 'b'), ('Ꮢ', 'R'), ('ꮢ', 'r'), ('Ꮤ', 'W'),
    ('ꮤ', 'w'), ('Ꮥ', 'S'), ('ꮥ', 's'), ('Ꮩ', 'V'), ('ꮩ', 'v'), ('Ꮪ', 'S'), ('ꮪ', 's'), ('Ꮮ', 'L'),
    ('ꮮ', 'l'), ('Ꮯ', 'C'), ('ꮯ', 'c'), ('Ꮲ', 'P'), ('ꮲ', 'p'), ('Ꮶ', 'K'), ('ꮶ', 'k'), ('Ꮷ', 'd'),
    ('ꮷ', 'd'), ('Ᏻ', 'G'), ('ᏻ', 'g'), ('Ᏼ', 'B'), ('ᏼ', 'b'),
    ('ε', 'e'), ('Ϲ', 'C'), ('ϲ', 'c'), ('ϳ', 'j'),
];

/// In a word that mixes scripts, or one dressed as Latin, each letter that looks like a Latin
/// one replaced by it ([`like`]); every other word as it is.
pub(super) fn unconfuse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let latin = latin_word(text);
    let flush = |word: &mut String, out: &mut String| {
        if look_alike_word(word).is_some() || (latin && dressed_as_latin(word)) {
            out.extend(word.chars().map(|c| like(c).unwrap_or(c)));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Words that name no maker: what USB bridges and virtual disks put in the vendor field.
pub(super) fn is_filler(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "ata" | "generic" | "usb" | "mass storage" | "mass storage device" | "unknown" | "0x0000"
    )
}

/// Letters and digits of any script in lower case, every other run of characters one dash
/// (after `normalise`): 闪迪至尊 and Тошиба keep their names, in URLs percent-encoded.
pub fn slug(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    // What is written on a letter (an accent, a dot below, a stroke through it) and a small
    // capital's size are no part of a key: `ẸVO`, `E̶VO` and `ᴇᴠᴏ` ranked as twins of the EVO
    // (issue 59's attack pass). Shown names keep them.
    // (`normalise` drops a trade mark's sign: `SN850X™` was keyed `sn850xtm`, the fifth
    // attack pass.)
    let bare: String = normalise(text).nfkd().filter(|c| !is_mark(*c)).collect();
    // Composed again: a Hangul syllable is its letters decomposed.
    let text: String = bare.nfc().map(plain_letter).collect();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // An empty pair of brackets after a letter is drawn as an O (`EV()`, `PR[]`: the
        // thirteenth attack pass brought a hidden device back as `870 EV()`).
        let closing = match c {
            '(' => Some(')'),
            '[' => Some(']'),
            '{' => Some('}'),
            _ => None,
        };
        // After a figure too (`MX5()()`: the sixteenth).
        if closing.is_some()
            && chars.peek() == closing.as_ref()
            && out.ends_with(char::is_alphanumeric)
        {
            chars.next();
            out.push('o');
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if c == '+' && out.ends_with(char::is_alphanumeric) {
            // `970 EVO+` is the 970 EVO Plus, not the 970 EVO (the eighth attack pass).
            out.push_str("-plus-");
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// A key as the eye reads it: letters and digits only, a zero as an o, a one or an i as an
/// l, a three as an e, a four as an a, a five as an s, a seven as a t, an eight as a b, a nine
/// as a g, `rn` as `m`, `vv` as `w`, `cl` as `d` (after Unicode's confusables, TR39's
/// skeleton, for the letters a key holds). Two keys of one skeleton are one name to a reader
/// (`EV0` and `EVO`, `87O` and `870`); a key itself keeps its digits.
pub fn skeleton(key: &str) -> String {
    let plain: String = key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' | '|' => 'l',
            // `5amsung` (the fourth attack pass) and `8X500`: a digit drawn as a letter; `3VO`,
            // `S4MSUNG`, `Beas7`, `Kin9ston` (the sixth). Each digit its own letter, so no two
            // model numbers read alike (a 6 is left as it is: it reads as a b or a G).
            '3' => 'e',
            '4' => 'a',
            '5' => 's',
            '7' => 't',
            '8' => 'b',
            '9' => 'g',
            c => c,
        })
        .collect();
    // `VVD` for WD (the fifth attack pass), `Wcl` (the sixth), as `rn` for `m`; a `v` for a
    // `u` (`Fvry`, the sixth and seventh).
    plain
        .replace("rn", "m")
        .replace("vv", "w")
        .replace("cl", "d")
        .replace('v', "u")
        // A `Q` for an `O` (`990 PRQ`, `970 EVQ`: the eighth).
        .replace('q', "o")
}

/// A combining mark: what is written on the letter before it.
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}'
        | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// A Latin small capital as its letter (`ᴇ` as `e`), the dotless `ı` and `ȷ` as `i` and `j`,
/// and the Latin letters drawn as others (`ɡ`, `ɑ`, `ɩ`, `ʋ`: `Samsunɡ`, issue 59's third attack
/// pass) as those; a digit of another script as its ASCII digit (`०` as `0`); any other
/// character as it is.
fn plain_letter(c: char) -> char {
    // A bar or a bang inside a name is a letter in disguise (`B|ack`, `K!ngston`, the sixth
    // attack pass), not a break between words.
    match c {
        '|' => return 'l',
        '!' => return 'i',
        // The ideographic zero, a round letter-number (`990 PR〇`: the eighteenth).
        '\u{3007}' => return 'o',
        _ => {}
    }
    const SMALL: [(char, char); 46] = [
        ('ı', 'i'),
        ('ȷ', 'j'),
        ('ɡ', 'g'),
        ('ɑ', 'a'),
        ('ɩ', 'i'),
        ('ʋ', 'v'),
        ('ᴀ', 'a'),
        ('ʙ', 'b'),
        ('ᴄ', 'c'),
        ('ᴅ', 'd'),
        ('ᴇ', 'e'),
        ('ꜰ', 'f'),
        ('ɢ', 'g'),
        ('ʜ', 'h'),
        ('ɪ', 'i'),
        ('ᴊ', 'j'),
        ('ᴋ', 'k'),
        ('ʟ', 'l'),
        ('ᴍ', 'm'),
        ('ɴ', 'n'),
        ('ᴏ', 'o'),
        ('ᴘ', 'p'),
        ('ʀ', 'r'),
        ('ꜱ', 's'),
        ('ᴛ', 't'),
        ('ᴜ', 'u'),
        ('ᴠ', 'v'),
        ('ᴡ', 'w'),
        ('ʏ', 'y'),
        ('ᴢ', 'z'),
        ('ǫ', 'q'),
        // Letters with a stroke or a bar the confusables leave as they are (`Kinꞡston`, the
        // sixth attack pass).
        ('ꞡ', 'g'),
        ('ꞣ', 'k'),
        ('ꞥ', 'n'),
        ('ꞧ', 'r'),
        ('ꞩ', 's'),
        ('ƀ', 'b'),
        ('ɨ', 'i'),
        ('ʉ', 'u'),
        ('ƶ', 'z'),
        ('ȼ', 'c'),
        ('ɇ', 'e'),
        ('ɉ', 'j'),
        ('ɍ', 'r'),
        ('ꝑ', 'p'),
        ('ꝗ', 'q'),
    ];
    // The zeros of the scripts' own decimal digits (NFKC folds the full-width ones).
    const ZEROS: [u32; 24] = [
        0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6,
        0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0xa8d0, 0xa9d0,
    ];
    if let Some(zero) = ZEROS
        .iter()
        .find(|z| (**z..**z + 10).contains(&u32::from(c)))
    {
        return char::from(b'0' + (u32::from(c) - zero) as u8);
    }
    if let Some((_, letter)) = SMALL.iter().find(|(small, _)| *small == c) {
        return *letter;
    }
    // Any other Latin letter Unicode's confusables draw as an ASCII one (`ꬲ`, blackletter e,
    // as `e`); letters of other scripts keep theirs here (a Cyrillic name is a Cyrillic key).
    match script(c) == Some(Script::Latin) && !c.is_ascii() {
        true => like(c).unwrap_or(c),
        false => c,
    }
}

#[cfg(test)]
mod tests;

//! Names as people write them and as a site compares them, in any script: compatibility forms
//! folded, invisible characters removed, look-alike letters of other scripts seen through,
//! filler words that name no maker recognised, and a key (`slug`) of letters and digits.

/// Text from a document or a device, safe to put on a terminal or in a log line: control characters (an escape
/// sequence in a label would drive the terminal) are shown escaped, as `\u{1b}`. Imports refuse
/// them, but a store may hold documents saved before they did.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// `value` with every text in it as a result may hold it: control characters shown escaped
/// (see [`printable`]) and each text cut to [`super::document_error::MAX_TEXT_CHARS`]
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
                let fitted: String = printable(text).chars().take(most).collect();
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
    let folded: String = text.nfkc().filter(|c| !is_invisible(*c)).collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Characters that change how text is shown or compared without being seen: the
/// bidirectional controls, zero-width spaces and joiners, the word joiner, the byte-order mark.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// The scripts whose letters imitate each other: Latin, Greek and Cyrillic.
#[derive(Clone, Copy, PartialEq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
}

fn script(c: char) -> Option<Script> {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{00c0}'..='\u{024f}' => Some(Script::Latin),
        '\u{0370}'..='\u{03ff}' => Some(Script::Greek),
        '\u{0400}'..='\u{04ff}' => Some(Script::Cyrillic),
        _ => None,
    }
}

/// The first word of `text` whose letters come from more than one of Latin, Greek and
/// Cyrillic: a name written in one script has none (Тошиба is a real word; EVО is not).
pub(super) fn look_alike_word(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_alphanumeric()).find(|word| {
        let mut first = None;
        word.chars()
            .filter_map(script)
            .any(|s| *first.get_or_insert(s) != s)
    })
}

/// In a word that mixes scripts, each Greek or Cyrillic letter that looks like a Latin one
/// replaced by it (after Unicode's confusables, for the letters of these scripts that model
/// names can hide); every other word as it is.
pub(super) fn unconfuse(text: &str) -> String {
    const LIKE: [(char, char); 44] = [
        ('А', 'A'),
        ('В', 'B'),
        ('Е', 'E'),
        ('К', 'K'),
        ('М', 'M'),
        ('Н', 'H'),
        ('О', 'O'),
        ('Р', 'P'),
        ('С', 'C'),
        ('Т', 'T'),
        ('Х', 'X'),
        ('У', 'Y'),
        ('І', 'I'),
        ('Ј', 'J'),
        ('Ѕ', 'S'),
        ('а', 'a'),
        ('е', 'e'),
        ('о', 'o'),
        ('р', 'p'),
        ('с', 'c'),
        ('у', 'y'),
        ('х', 'x'),
        ('і', 'i'),
        ('ј', 'j'),
        ('ѕ', 's'),
        ('Α', 'A'),
        ('Β', 'B'),
        ('Ε', 'E'),
        ('Ζ', 'Z'),
        ('Η', 'H'),
        ('Ι', 'I'),
        ('Κ', 'K'),
        ('Μ', 'M'),
        ('Ν', 'N'),
        ('Ο', 'O'),
        ('Ρ', 'P'),
        ('Τ', 'T'),
        ('Υ', 'Y'),
        ('Χ', 'X'),
        ('ο', 'o'),
        ('ν', 'v'),
        ('ι', 'i'),
        ('κ', 'k'),
        ('ρ', 'p'),
    ];
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if look_alike_word(word).is_some() {
            out.extend(word.chars().map(|c| {
                LIKE.iter()
                    .find(|(from, _)| *from == c)
                    .map_or(c, |(_, to)| *to)
            }));
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
    let text = normalise(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

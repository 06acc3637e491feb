//! A word dressed up: a sign or a number not a digit standing in for a letter or a digit
//! (`B℮ast`, `🇰ingston`, `T❼`), or a Latin letter of the phonetic alphabets and rarer Latin
//! blocks among plain ones (`FƲry`, `Fꝸry`, `ʍD`): the seventh attack pass ranked each as a
//! device of its own, the sign dropped from its key or kept as a new one.

use unicode_normalization::UnicodeNormalization;

/// Signs a name may write beside a letter or a digit: punctuation of names and model numbers
/// (`Ultra+`, `SD/MMC`, `(A)`, `3.0`), and the signs of a trade mark. No brackets: a name a
/// site hid a path in (`\/\/D Black` is `[folder] Black`) is no name.
const PUNCTUATION: &str = "-_.,/()+&'\"`:;#!?*%=™®©℠°’‘“”–—";

/// The first whitespace-separated word of `text` that is dressed up (see the module); a
/// character `plain` reads as a letter or digit of its own (`ᴇ` as `e`, `|` as `l`) is that
/// letter, as the key reads it, not a disguise.
pub(in crate::result) fn disguised_word(text: &str, plain: fn(char) -> char) -> Option<&str> {
    // A blank drawn as one (the braille blank, a Hangul filler) is a space, as keys read it.
    let blank = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{2800}' | '\u{3164}' | '\u{115f}' | '\u{1160}' | '\u{ffa0}'
            )
    };
    text.split(blank).filter(|t| !t.is_empty()).find(|token| {
        let chars: Vec<char> = token.chars().collect();
        let plain_letters = chars.iter().any(|c| c.is_ascii_alphabetic());
        (0..chars.len()).any(|i| {
            let c = chars[i];
            let beside = |j: Option<usize>| {
                j.and_then(|j| chars.get(j))
                    .is_some_and(|n| n.is_alphanumeric())
            };
            let near = beside(i.checked_sub(1)) || beside(Some(i + 1));
            if plain(c) != c {
                return false;
            }
            let sign = !c.is_alphanumeric()
                && !c.is_whitespace()
                && !PUNCTUATION.contains(c)
                && !is_mark(c);
            // A number drawn in a circle, a square or a dingbat (a digit of another script
            // is that digit, as the key reads it).
            let odd_number = c.is_numeric()
                && matches!(c, '\u{2150}'..='\u{218f}' | '\u{2460}'..='\u{24ff}'
                    | '\u{2700}'..='\u{27bf}' | '\u{3251}'..='\u{32bf}'
                    | '\u{1f100}'..='\u{1f1ff}');
            (near && (sign || odd_number)) || (plain_letters && rare_latin(c))
        })
    })
}

/// A mark written on the letter before it, of any script (Devanagari's vowel signs too).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036f}' | '\u{0900}'..='\u{0dff}' | '\u{1ab0}'..='\u{1aff}'
        | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe00}'..='\u{fe2f}')
}

/// A letter past Latin Extended-A (U+0180 on: Latin Extended-B, the phonetic alphabets,
/// Latin Extended-C to -E) that is no plain letter with accents (`ș`, `ơ`, `ǎ` are; `Ʋ`,
/// `ꝸ`, `ʍ` are not).
fn rare_latin(c: char) -> bool {
    let latin_blocks = matches!(c, '\u{0180}'..='\u{02af}' | '\u{1d00}'..='\u{1dbf}'
        | '\u{2c60}'..='\u{2c7f}' | '\u{a720}'..='\u{a7ff}' | '\u{ab30}'..='\u{ab6f}');
    latin_blocks
        && c.is_alphabetic()
        && !std::iter::once(c)
            .nfd()
            .next()
            .is_some_and(|base| base.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::super::plain_letter;

    fn disguised_word(text: &str) -> Option<&str> {
        super::disguised_word(text, plain_letter)
    }

    #[test]
    fn a_sign_or_a_rare_letter_inside_a_name_is_a_disguise() {
        for (name, word) in [
            ("Kingston Fury B\u{212e}ast", "B\u{212e}ast"),
            ("\u{1f1f0}ingston Fury Beast", "\u{1f1f0}ingston"),
            ("Samsung T\u{277c} Shield", "T\u{277c}"),
            ("Kingston F\u{1b2}ry Beast", "F\u{1b2}ry"),
            ("Kingston F\u{a778}ry Beast", "F\u{a778}ry"),
            ("\u{28d}D Black SN770M", "\u{28d}D"),
            ("Kingston B\u{a6}ue", "B\u{a6}ue"),
            ("[folder] Black SN770M", "[folder]"),
        ] {
            assert_eq!(disguised_word(name), Some(word), "{name}");
        }
        // Names as makers and firmware write them.
        for name in [
            "SanDisk Ultra® Fit™ 3.2Gen1",
            "Generic- SD/MMC/MS PRO",
            "Card Reader & Writer (A)",
            "Samsung PRO Plus+ 128GB",
            "WDC WDS500G2B0A-00SM50",
            "Ştefan's Memorie",
            "Bộ nhớ ơ ư",
            "A400固态 SSDの",
            "Тошиба 64GB",
            "USB3.0 CRW   -SD",
            "Kingston DataTraveler 3.0 #1",
            "Crucial MX500 1TB 2.5\"",
            "Extreme\u{2800} Go",
            "Samsung\u{3164}SSD 870 EVO",
            "\u{1d07}xtreme Go",
            "Kingston B|ue",
        ] {
            assert_eq!(disguised_word(name), None, "{name}");
        }
    }
}

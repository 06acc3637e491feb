//! What a device key says of the product, as a reader sees it: its makers, its words less
//! those that name no product, its capacities (`hold.rs` compares hidden devices and new keys
//! by it).

use iomark_result::result::drive::maker_words;
use iomark_result::result::identity::skeleton;

/// What a device key says of the product: its maker, the rest as a reader sees it, and the
/// capacities it gives in gigabytes.
pub(super) struct Product {
    /// Every maker it names (`Micron Crucial`).
    pub(super) makers: std::collections::BTreeSet<String>,
    /// Its words as a reader sees them, less those that name no product.
    pub(super) words: Vec<String>,
    /// The same words as written.
    pub(super) written: Vec<String>,
    pub(super) core: String,
    /// The same words sorted, run together.
    pub(super) sorted: String,
    pub(super) gb: std::collections::BTreeSet<u64>,
}

impl Product {
    pub(super) fn of(key: &str) -> Product {
        // Words that name no product: what a drive is, its bus and form, how it is sold.
        #[rustfmt::skip]
        const NO_PRODUCT: [&str; 31] = [
            "ssd", "nvme", "new", "with", "the", "drive", "disk", "internal", "external", "m2",
            "pcie", "gen3", "gen4", "gen5", "sata", "solid", "state", "renewed", "refurbished",
            "oem", "bulk", "retail", "series", "nand", "vnand", "iii", "inch", "digital", "by",
            "edition", "version",
        ];
        // Makers as a reader sees them (`Sarnsung`, `S4MSUNG`: the sixth attack pass), each
        // with the maker it names (`western` and `wd` are one; `삼성` is Samsung).
        // Made once: a new device's key is read against every device's (`look_alike_of`).
        static MAKERS: std::sync::OnceLock<Vec<(String, Option<&'static str>)>> =
            std::sync::OnceLock::new();
        let makers = MAKERS.get_or_init(|| maker_words().map(|(w, m)| (skeleton(w), m)).collect());
        let is_maker = |seen: &str| makers.iter().any(|m| m.0 == seen);
        // One maker's brands are one maker to a reader: Crucial is Micron's, Kioxia was
        // Toshiba's memory (the eighth attack pass: `Micron P5 Plus`, `Toshiba Exceria`).
        let maker = |seen: &str| {
            let named = makers.iter().find(|m| m.0 == seen).and_then(|m| m.1);
            named.map(|m| match m {
                "Micron" => "crucial".to_string(),
                "Toshiba" => "kioxia".to_string(),
                // Solidigm is SK hynix's (the sixteenth attack pass brought a hidden SK hynix
                // back as `Solidigm P41 Platinum`).
                "Solidigm" => "sk hynix".to_string(),
                m => m.to_ascii_lowercase(),
            })
        };
        let mut product = Product {
            makers: Default::default(),
            words: Vec::new(),
            written: Vec::new(),
            core: String::new(),
            sorted: String::new(),
            gb: Default::default(),
        };
        // Each word as written, and as a reader sees it.
        let mut words: Vec<(&str, String)> = Vec::new();
        let joined = figures(joined(key));
        // A word of another script than the model's Latin words, and no maker this site
        // knows in it, is a maker's name transcribed (`クルーシャル MX500`: the sixteenth attack
        // pass ranked it beside `Crucial MX500`), or a word no reader of the rest reads: no
        // part of the product, nor a maker to tell it apart by.
        let latin = joined
            .iter()
            .any(|w| w.contains(|c: char| c.is_ascii_alphabetic()));
        for word in joined.iter().map(String::as_str) {
            if latin
                && !word.contains(|c: char| c.is_ascii_alphanumeric())
                && !is_maker(&skeleton(word))
            {
                continue;
            }
            let (word, gb) = capacity_of(word);
            product.gb.extend(gb);
            if NO_PRODUCT.contains(&word) {
                // `2.5 inch`, `V-NAND`: the words before it are its own.
                let before = |w: &(&str, String)| match word {
                    "inch" => w.0.len() <= 2 && w.0.chars().all(|c| c.is_ascii_digit()),
                    "nand" => w.0 == "v",
                    _ => false,
                };
                while words.last().is_some_and(before) {
                    words.pop();
                }
                continue;
            }
            // A maker or `ssd` glued before the model (`samsungssd`, `ssd990`), split at a
            // character's edge (the sixth attack pass's `삼성…` split inside a letter).
            // A word written out as its short form is (`Professional` for `PRO`: the ninth).
            let word = match word {
                "professional" => "pro",
                w => w,
            };
            let mut seen = skeleton(word);
            // A maker's own word is not split (`corsair` is no `co` glued to `rsair`).
            while let Some((glued, rest)) = (!is_maker(&seen)).then_some(()).and_then(|()| {
                seen.char_indices()
                    .map(|(i, _)| i)
                    .filter(|&i| i >= 2)
                    .rev()
                    .map(|i| seen.split_at(i))
                    .find(|(p, _)| *p == "ssd" || is_maker(p))
                    .map(|(p, r)| (p.to_string(), r.to_string()))
            }) {
                product.makers.extend(maker(&glued));
                seen = rest;
            }
            if is_maker(&seen) {
                product.makers.extend(maker(&seen));
            } else if !seen.is_empty()
                && !NO_PRODUCT.contains(&seen.as_str())
                // A word said again adds nothing (`… 990 EVO 2TB Samsung SSD 990 EVO 2TB`,
                // `P5 Plus Plus`: the tenth attack pass).
                && !words.iter().any(|(_, s)| *s == seen)
            {
                words.push((word, seen));
            }
        }
        product.written = words.iter().map(|(w, _)| w.to_string()).collect();
        let mut seen: Vec<String> = words.into_iter().map(|(_, s)| s).collect();
        product.core = seen.concat();
        product.words = seen.clone();
        // Its words in any order (`PRO 990`).
        seen.sort();
        product.sorted = seen.concat();
        product
    }
}

/// A capacity in gigabytes as a key writes it (`500gb`, `2tb`).
fn gb_of(w: &str) -> Option<u64> {
    let (n, per) = match (w.strip_suffix("gb"), w.strip_suffix("tb")) {
        (Some(n), _) => (n, 1),
        (_, Some(n)) => (n, 1000),
        _ => return None,
    };
    n.parse::<u64>().ok().map(|n| n * per)
}

/// A word less the capacity it is or that is glued to its end (`990pro2tb`: the model and the
/// capacity), and that capacity.
fn capacity_of(word: &str) -> (&str, Option<u64>) {
    let glued = word
        .char_indices()
        .filter(|&(i, c)| {
            i > 0 && c.is_ascii_digit() && !word[..i].ends_with(|d: char| d.is_ascii_digit())
        })
        .find_map(|(i, _)| Some((&word[..i], gb_of(&word[i..])?)));
    match (gb_of(word), glued) {
        (Some(gb), _) => ("", Some(gb)),
        (None, Some((model, gb))) => (model, Some(gb)),
        (None, None) => (word, None),
    }
}

/// A key's words, letters spaced apart joined into one (`q-v-o` is `qvo` to a reader: the
/// eleventh attack pass).
fn joined(key: &str) -> Vec<String> {
    let mut joined: Vec<String> = Vec::new();
    let mut apart = false;
    for word in key.split('-').filter(|w| !w.is_empty()) {
        let letter = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
        match joined.last_mut() {
            Some(last) if letter && apart => last.push_str(word),
            _ => joined.push(word.to_string()),
        }
        apart = letter;
    }
    joined
}

/// A key's numbers written in English words as figures, as a reader reads them: a run of them
/// is one figure (`eight-sixty` is `860`, `nine-seven-zero` `970`, `eight-hundred-sixty`
/// `860`, `sixty-five` `65`: the eleventh attack pass ranked `eight-sixty QVO` as a device
/// of its own).
pub(super) fn figures(words: Vec<String>) -> Vec<String> {
    #[rustfmt::skip]
    const UNITS: [&str; 20] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let unit = |w: Option<&String>| w.and_then(|w| UNITS.iter().position(|u| u == w));
    let tens = |w: Option<&String>| w.and_then(|w| TENS.iter().position(|t| t == w));
    let said = |at: usize, word: &str| words.get(at).is_some_and(|w| w == word);
    // Twenty to ninety from `at`, with a unit after it (`sixty-five`); and where it ends.
    let tens_from = |at: usize| {
        let n = 20 + 10 * tens(words.get(at))?;
        Some(match unit(words.get(at + 1)) {
            Some(u @ 1..=9) => (n + u, at + 2),
            _ => (n, at + 1),
        })
    };
    // One number from `at` (`eight`, `sixty-five`, `eight-hundred-and-sixty-five`), and where
    // the next begins.
    let number = |at: usize| -> Option<(usize, usize)> {
        let Some(u) = unit(words.get(at)) else {
            return tens_from(at);
        };
        if !said(at + 1, "hundred") {
            return Some((u, at + 1));
        }
        let at = at + 2 + usize::from(said(at + 2, "and"));
        Some(match (tens_from(at), unit(words.get(at))) {
            (Some((rest, next)), _) => (u * 100 + rest, next),
            (None, Some(ones @ 1..)) => (u * 100 + ones, at + 1),
            _ => (u * 100, at),
        })
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let mut figure = String::new();
        while let Some((n, next)) = number(at) {
            figure.push_str(&n.to_string());
            at = next;
        }
        if figure.is_empty() {
            figure = words[at].clone();
            at += 1;
        }
        out.push(figure);
    }
    out
}

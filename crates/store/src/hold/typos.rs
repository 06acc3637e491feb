//! Names a reader skims past as another's: a letter for a digit or another letter, a letter
//! left out, added or two swapped (`hold.rs` holds a new device so named for a moderator).

/// Whether `key` is `other` with one letter inside a word written as another character: as
/// a digit, whichever (`kin6ston` for `kingston`, the sixth attack pass; a skeleton reads only
/// the digits that look like one letter), or as another letter in a word of five letters or
/// more (`Samsunq`, `Kingstom`). Model numbers differ by digits among digits (`860`, `870`),
/// and short words by a letter (`EVO`, `QVO`; `Fvry` for `Fury` is the skeleton's, a `v` read
/// as a `u`), not so.
pub(super) fn a_letter_off(key: &str, other: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (key.chars().collect(), other.chars().collect());
    if a.len() != b.len() {
        return false;
    }
    let mut differ = (0..a.len()).filter(|&i| a[i] != b[i]);
    let (Some(i), None) = (differ.next(), differ.next()) else {
        return false;
    };
    let letter = |c: Option<&char>| c.is_some_and(|c| c.is_alphabetic());
    let swapped = (a[i].is_ascii_digit() && b[i].is_alphabetic())
        || (b[i].is_ascii_digit() && a[i].is_alphabetic());
    // Letters on both sides of it, in both keys: inside a word, not a model number's end.
    let inside = letter(a.get(i.wrapping_sub(1))) && letter(a.get(i + 1));
    // The word it is in, in `other`: all letters, five or more.
    let start = (0..i).rev().find(|&j| b[j] == '-').map_or(0, |j| j + 1);
    let end = (i..b.len()).find(|&j| b[j] == '-').unwrap_or(b.len());
    let long_word = end - start >= 5 && b[start..end].iter().all(|c| c.is_alphabetic());
    (swapped && inside) || (a[i].is_alphabetic() && b[i].is_alphabetic() && long_word)
}

/// Whether `key` is `other` but for one word of letters a reader skims past as the other's:
/// a letter left out, added, changed or two swapped (`kingsto`, `kingstton`, `kignston`: the
/// seventh attack pass), two of these in a word of seven letters or more (`sannsung`,
/// `samsiing`), one in a word of four (`Plys` for `Plus`, written with a small capital `ʏ`:
/// the fourteenth). Words of three letters differ by a letter as products do (`EVO`, `QVO`),
/// and model numbers by digits.
pub(super) fn a_typo_off(key: &str, other: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (key.split('-').collect(), other.split('-').collect());
    if a.len() != b.len() {
        return false;
    }
    let mut differ = a.iter().zip(&b).filter(|(x, y)| x != y);
    let (Some((x, y)), None) = (differ.next(), differ.next()) else {
        return false;
    };
    let (x, y): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
    // Two neighbours swapped, in any word of three or more (`Plsu`, `907`: the eighth attack
    // pass; no two products differ so).
    let swapped = neighbours_swapped(&x, &y);
    // A letter left out of or added to a word of letters of four or more (`Pls` for `Plus`:
    // the ninth); a letter changed in a short word is another product (`EVO`, `QVO`), and so
    // is a letter added to a model number (`SN850X` beside `SN850`: the fifteenth found it
    // waiting).
    let letters = |w: &[char]| w.iter().all(|c| c.is_alphabetic());
    let one_more =
        x.len().abs_diff(y.len()) == 1 && x.len().max(y.len()) >= 4 && letters(&x) && letters(&y);
    if swapped || (one_more && edits(&x, &y) == 1) {
        return true;
    }
    // In a word of three, a letter drawn like the other's (`EVD` for `EVO`, `FRO` or `PRD`
    // for `PRO`: the fifteenth attack pass ranked them above the real ones); `EVO` and `QVO`
    // are two products.
    let drawn_alike = x.len() == 3
        && y.len() == 3
        && letters(&x)
        && letters(&y)
        && x.iter().zip(&y).filter(|(a, b)| a != b).count() == 1
        && x.iter().zip(&y).any(|(a, b)| {
            DRAWN_ALIKE
                .iter()
                .any(|&(p, q)| (*a, *b) == (p, q) || (*a, *b) == (q, p))
        });
    if drawn_alike {
        return true;
    }
    let longer = x.len().max(y.len());
    let allowed = if longer >= 7 { 2 } else { 1 };
    longer >= 4 && letters(&x) && letters(&y) && edits(&x, &y) <= allowed
}

/// Letters drawn alike, as a key writes them (small): a reader skims one for the other.
const DRAWN_ALIKE: [(char, char); 10] = [
    ('o', 'd'),
    ('o', 'c'),
    ('p', 'f'),
    ('p', 'r'),
    ('b', 'h'),
    ('h', 'n'),
    ('m', 'n'),
    ('e', 'c'),
    ('e', 'f'),
    ('g', 'q'),
];

/// The letters left out, added, changed or swapped with the next that make `a` into `b`
/// (Damerau's, on the optimal string alignment).
fn edits(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// Whether `key` is `other` but for two neighbours swapped in one word of three or more
/// (`860-qov`, `806-qvo` for `860-qvo`: no two products differ so).
pub(super) fn a_swap_off(key: &str, other: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (key.split('-').collect(), other.split('-').collect());
    let mut differ = a.iter().zip(&b).filter(|(x, y)| x != y);
    match (a.len() == b.len(), differ.next(), differ.next()) {
        (true, Some((x, y)), None) => {
            let (x, y): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
            neighbours_swapped(&x, &y)
        }
        _ => false,
    }
}

fn neighbours_swapped(x: &[char], y: &[char]) -> bool {
    x.len() == y.len()
        && x.len() >= 3
        && (0..x.len() - 1).any(|i| {
            x[i] != x[i + 1]
                && x[i] == y[i + 1]
                && x[i + 1] == y[i]
                && (0..x.len()).all(|j| j == i || j == i + 1 || x[j] == y[j])
        })
}

//! Whether a new key is a device a moderator hid, under another spelling (`hold.rs` holds its
//! results while it is hidden).

use super::product::Product;
use super::{holds, VARIANT};

/// Whether two device keys name one device to a moderator who hid one of them: what is left
/// of each once the words that name no product are gone (a maker or its company, `ssd`,
/// `nvme`, `gen4`, `new`…) is one run of letters and digits as a reader sees it (a zero as an
/// O: `identity::skeleton`), their makers, where both name one, are one, and so are their
/// capacities, where both give any (a terabyte a thousand gigabytes; a capacity glued to the
/// model, `990PRO2TB`, is one). A hidden device's results came back as `… 990 PRO 4TB (new)`,
/// `Samsung 990 PRO 4TB`, `990PRO`, `… 4000GB` (the fourth attack pass), `SSD 990 PRO 2TB`,
/// `Samsung Electronics … 2TB Gen4`, `… 990 PR0 …`, `990PRO2TB` and with a size that keyed it
/// `…-2tb-2147gb` (the fifth). Whatever words a name adds about it, it is the product it
/// holds whole (the seventh came back as `… 1TB Used`, `Open Box`, `3D NAND`, `SSD
/// Festplatte`, `Micron Crucial …`, `Crvcial MX500 1TB`, `MX 500 1 TB`: words no list will
/// ever hold): a key whose words hold the hidden one's, in a run (`mx`, `500` hold `mx500`),
/// of no other maker and no other capacity, waits too, unless a word it adds names another
/// product of the line ([`VARIANT`]: `… 990 PRO Plus`, `… with Heatsink`) or a model of its
/// own (`WD Blue SA510` is no fake `WD Blue`).
pub(super) fn same_device(hidden: &str, key: &str) -> bool {
    let (h, mut k) = (Product::of(hidden), Product::of(key));
    // A word cut short (`Plat.` for `Platinum`: the sixteenth attack pass) is the hidden name's
    // word it begins: four letters or more of one of six or more.
    let mut cut = false;
    for (word, seen) in k.written.iter_mut().zip(k.words.iter_mut()) {
        let whole = h.written.iter().find(|w| {
            w.len() >= 6
                && w.len() > word.len()
                && word.len() >= 4
                && w.starts_with(word.as_str())
                && w.chars().all(|c| c.is_ascii_alphabetic())
        });
        if let Some(whole) = whole {
            let at = h
                .written
                .iter()
                .position(|w| w == whole)
                .unwrap_or_default();
            (*word, *seen) = (whole.clone(), h.words[at].clone());
            cut = true;
        }
    }
    // Its name less a word of its line (`Samsung SSD 860 500GB` for a hidden `… 860 QVO …`: the
    // nineteenth attack pass), of one maker and capacity.
    let less_one = h.written.len() == k.written.len() + 1
        && (0..h.written.len()).any(|at| {
            VARIANT.contains(&h.written[at].as_str())
                && h.written[..at] == k.written[..at]
                && h.written[at + 1..] == k.written[at..]
        })
        && !h.makers.is_disjoint(&k.makers)
        && !h.gb.is_disjoint(&k.gb);
    if less_one {
        return true;
    }
    if cut {
        k.core = k.words.concat();
        let mut sorted = k.words.clone();
        sorted.sort();
        k.sorted = sorted.concat();
    }
    holds(&h, &k)
}

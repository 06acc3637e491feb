//! The words each maker names its lines' products by: `… PRO` and `… Plus` are Samsung's
//! other products, `Extreme` is SanDisk's; `Crucial MX500 Extreme` and `… Turbo` are no
//! product of Crucial's (the sixteenth attack pass ranked each as a device of its own,
//! above the real MX500). From the makers' catalogues of 2026; a maker not here may use any
//! of [`super::VARIANT`]'s words.

/// Each maker (as `Product` names it) and the words of `VARIANT` its products' names use.
#[rustfmt::skip]
const LINES: [(&str, &[&str]); 10] = [
    ("samsung", &["plus", "pro", "evo", "qvo", "shield", "fit", "portable", "heatsink", "touch",
        "mini", "micro", "duo", "max"]),
    ("crucial", &["plus", "pro", "max", "portable", "heatsink", "slim", "go", "mini"]),
    ("sandisk", &["extreme", "ultra", "pro", "plus", "fit", "go", "dual", "duo", "max", "micro",
        "mini", "blade", "portable", "edge", "touch", "nano", "slim", "prime", "xs", "shield"]),
    ("wd", &["plus", "pro", "se", "ultra", "go", "elite", "edge", "heatsink", "portable", "max",
        "mini", "slim", "duo", "dual", "touch", "xl", "lite"]),
    ("kingston", &["plus", "go", "max", "duo", "micro", "mini", "heatsink", "rgb", "xs", "se",
        "g2", "g3", "g4", "pro", "elite", "edge", "slim", "lite", "xl"]),
    ("kioxia", &["plus", "pro", "g2", "g3", "g4", "xs", "mini", "micro", "duo", "portable"]),
    ("corsair", &["core", "pro", "xt", "elite", "mini", "plus", "max", "slim", "heatsink", "rgb",
        "xs", "lite"]),
    ("sk hynix", &["plus", "pro", "max", "heatsink", "portable"]),
    ("seagate", &["plus", "pro", "slim", "ultra", "touch", "portable", "mini", "duo", "max", "go",
        "heatsink", "lite", "xs"]),
    ("lexar", &["plus", "pro", "max", "go", "mini", "micro", "dual", "duo", "slim", "portable",
        "heatsink", "armor", "elite", "edge", "prime", "touch", "lite", "xl", "rgb"]),
];

/// Whether `word` (one of `VARIANT`'s) names another product of a line of a maker of
/// `makers`: any of them not in [`LINES`] may use it.
pub(super) fn of_the_line(makers: &std::collections::BTreeSet<String>, word: &str) -> bool {
    makers.is_empty()
        || makers.iter().any(|maker| {
            LINES
                .iter()
                .find(|(m, _)| m == maker)
                .is_none_or(|(_, words)| words.contains(&word))
        })
}

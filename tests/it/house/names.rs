//! The map names only what is where it says: every item docs/ARCHITECTURE.md and
//! CONTRIBUTING.md name exists, and where they say. A path of modules (`web::guard`,
//! `suite::runner::run`) resolves to a file and an item defined there; a type's method
//! (`Store::history()`, `Tell::settle`) is defined beside its type; a name said to be in a file
//! (`` `Plan` in `units.rs` ``, `` `Signal` (`health/mod.rs`) ``) is defined in that file; and a
//! type, a constant or a function named alone (`WarningKind`, `METRICS`, `cards()`) is defined
//! somewhere in the workspace. Paths of files are `the_map_names_only_what_exists`'s.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{code, modules, Module, CRATES};

/// The documents that name the house's items.
const MAPS: [&str; 2] = ["docs/ARCHITECTURE.md", "CONTRIBUTING.md"];

/// Crates a map may name a path of that are not iomark's.
const OUTSIDE: [&str; 6] = ["std", "tokio", "axum", "sqlx", "serde", "tower"];

/// Names in capitals a map may give that are not iomark's (a flag of the kernel's, a file).
const OUTSIDE_NAMES: [&str; 2] = ["O_EXCL", "SHA256SUMS"];

/// The names a file's code defines, at any depth: types, functions and methods, constants,
/// statics, modules, macros, fields and enum variants.
fn definitions(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let mut rest = line.trim_start();
        for word in ["pub(crate) ", "pub(super) ", "pub "] {
            rest = rest.strip_prefix(word).unwrap_or(rest);
        }
        for word in ["async ", "const fn ", "unsafe "] {
            if word == "const fn " && rest.starts_with(word) {
                rest = &rest["const ".len()..];
            } else {
                rest = rest.strip_prefix(word).unwrap_or(rest);
            }
        }
        let keywords = [
            "struct ",
            "enum ",
            "union ",
            "trait ",
            "type ",
            "fn ",
            "const ",
            "static ",
            "mod ",
            "macro_rules! ",
        ];
        if let Some(after) = keywords.iter().find_map(|k| rest.strip_prefix(k)) {
            out.insert(identifier(after));
            continue;
        }
        // A field (`name: Type,`) or a variant (`Name,`, `Name {`, `Name(`).
        let word = identifier(rest);
        let after = rest[word.len()..].trim_start();
        let field = after.starts_with(':') && !after.starts_with("::");
        let variant = word.starts_with(|c: char| c.is_ascii_uppercase())
            && (after.is_empty() || after.starts_with([',', '{', '(']));
        if !word.is_empty() && (field || variant) {
            out.insert(word);
        }
    }
    out.remove("");
    out
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// A Rust path a text names: words joined by `::`, a call's `()` dropped.
fn rust_paths(text: &str) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')) {
        let word = word.trim_matches(':');
        if word.contains("::") && word.split("::").all(|w| !identifier(w).is_empty()) {
            out.insert(word.split("::").map(str::to_string).collect());
        }
    }
    out
}

/// What a text names alone in backticks: a type (`WarningKind`), a constant (`METRICS`) or a
/// function (`cards()`), without its parentheses.
fn single_names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, part) in text.split('`').enumerate() {
        let name = part.strip_suffix("()").unwrap_or(part);
        let whole = identifier(name) == name && !name.is_empty();
        let camel = name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.contains(|c: char| c.is_ascii_lowercase());
        let capitals = name.len() > 2 && name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        let call = part.ends_with("()");
        if i % 2 == 1 && whole && (camel || capitals || call) && !OUTSIDE_NAMES.contains(&name) {
            out.insert(name.to_string());
        }
    }
    out
}

/// `` `Name` in `file.rs` `` and `` `Name` (`file.rs`) ``: a name said to be defined in a file.
fn placed_names(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let parts: Vec<&str> = text.split('`').collect();
    for i in (1..parts.len().saturating_sub(2)).step_by(2) {
        let name = parts[i].strip_suffix("()").unwrap_or(parts[i]);
        let between = parts[i + 1];
        let file = parts[i + 2];
        let placed = matches!(between, " in " | " (" | ", in ");
        if placed && identifier(name) == name && !name.is_empty() && file.ends_with(".rs") {
            out.insert((name.to_string(), file.to_string()));
        }
    }
    out
}

/// The workspace's files: module path, file and what its code defines.
struct Files(Vec<(Module, PathBuf, BTreeSet<String>)>);

impl Files {
    fn read() -> Files {
        Files(
            modules()
                .into_iter()
                .map(|(module, source)| {
                    let defined = definitions(&code(&source.path));
                    (module, source.path, defined)
                })
                .collect(),
        )
    }

    /// The files of the modules whose path ends with `words`, each with its descendants.
    fn under(&self, words: &[String]) -> Vec<Vec<&(Module, PathBuf, BTreeSet<String>)>> {
        self.0
            .iter()
            .filter(|(module, _, _)| module.ends_with(words))
            .map(|(top, _, _)| {
                self.0
                    .iter()
                    .filter(|(module, _, _)| module.starts_with(top))
                    .collect()
            })
            .collect()
    }

    /// Whether a path of modules and items names what exists, where it says; what is wrong,
    /// where not.
    fn resolve(&self, path: &[String]) -> Result<(), String> {
        let mut words: Vec<String> = path.to_vec();
        if let Some((_, _, root)) = CRATES.iter().find(|c| c.1 == path[0]) {
            words.splice(0..1, root.iter().map(|r| r.to_string()));
        }
        // The longest run of modules the path begins with, then its items inside them.
        for k in (1..=words.len()).rev() {
            let trees = self.under(&words[..k]);
            if trees.is_empty() {
                continue;
            }
            let items = &words[k..];
            let found = trees.iter().any(|tree| {
                items
                    .iter()
                    .all(|item| tree.iter().any(|(_, _, defined)| defined.contains(item)))
            });
            return match found {
                true => Ok(()),
                false => Err(format!(
                    "{}: no {} in module {}",
                    path.join("::"),
                    items.join("::"),
                    words[..k].join("::")
                )),
            };
        }
        // A type's method: beside the type, in its file or (for a folder's mod.rs) its folder.
        let homes: Vec<&(Module, PathBuf, BTreeSet<String>)> = self
            .0
            .iter()
            .filter(|(_, _, defined)| defined.contains(&words[0]))
            .collect();
        if homes.is_empty() {
            return Err(format!(
                "{}: no module or type {} in the workspace",
                path.join("::"),
                words[0]
            ));
        }
        let beside = homes.iter().any(|(module, file, _)| {
            let folder = file.ends_with("mod.rs") || file.ends_with("lib.rs");
            let tree: Vec<&BTreeSet<String>> = self
                .0
                .iter()
                .filter(|(m, _, _)| m == module || (folder && m.starts_with(module)))
                .map(|(_, _, defined)| defined)
                .collect();
            words[1..]
                .iter()
                .all(|item| tree.iter().any(|defined| defined.contains(item)))
        });
        match beside {
            true => Ok(()),
            false => Err(format!(
                "{}: {} is not beside {}",
                path.join("::"),
                words[1..].join("::"),
                words[0]
            )),
        }
    }

    /// Whether `name` is defined in the file a map calls `file` (a path from the top, or the
    /// end of one: `units.rs`, `health/mod.rs`).
    fn defines(&self, file: &str, name: &str) -> Result<(), String> {
        let top = Path::new(env!("CARGO_MANIFEST_DIR"));
        let files: Vec<&(Module, PathBuf, BTreeSet<String>)> = self
            .0
            .iter()
            .filter(|(_, path, _)| path.ends_with(file) || *path == top.join(file))
            .collect();
        match files.iter().any(|(_, _, defined)| defined.contains(name)) {
            true => Ok(()),
            false if files.is_empty() => Err(format!("`{name}` in `{file}`: no such file")),
            false => Err(format!("`{name}` is not in `{file}`")),
        }
    }
}

/// Every problem of one map's text.
fn problems(files: &Files, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for path in rust_paths(text) {
        if OUTSIDE.contains(&path[0].as_str()) {
            continue;
        }
        if let Err(why) = files.resolve(&path) {
            out.push(why);
        }
    }
    let everywhere: BTreeSet<&String> = files.0.iter().flat_map(|(_, _, d)| d).collect();
    let tests = definitions(&tests_code());
    for name in single_names(text) {
        if !everywhere.contains(&name) && !tests.contains(&name) {
            out.push(format!("`{name}` is defined nowhere"));
        }
    }
    for (name, file) in placed_names(text) {
        if let Err(why) = files.defines(&file, &name) {
            out.push(why);
        }
    }
    out
}

/// The integration tests' own code (the house's `ROOMS` is there).
fn tests_code() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/house");
    ["mod.rs", "types.rs", "names.rs"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect()
}

#[test]
fn the_maps_name_only_items_that_are_where_they_say() {
    let files = Files::read();
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for map in MAPS {
        let text = std::fs::read_to_string(top.join(map)).unwrap();
        all.extend(
            problems(&files, &text)
                .into_iter()
                .map(|p| format!("{map}: {p}")),
        );
    }
    assert!(all.is_empty(), "the maps name what is not there: {all:#?}");
}

/// A line gone stale in each way is caught: a type moved, a method gone, a module renamed, a
/// name said to be in the wrong file, a type that is no more.
#[test]
fn a_stale_line_in_a_map_is_caught() {
    let files = Files::read();
    let good = "`suite::Plan (plan.rs)`, `Store::history()`, `web::guard`, `iomark_store::Store`, \
                `Signal` (`health/mod.rs`) and `WarningKind` in `warning.rs`; `std::fs::File`";
    assert_eq!(problems(&files, good), Vec::<String>::new());
    for stale in [
        "`Plan` in `timer.rs`",
        "`Store::histories()`",
        "`web::listeners`",
        "`suite::Plans`",
        "`Tell::settle` and `Told::settle`",
        "`WarningKinds`",
        "`cardz()`",
    ] {
        assert_eq!(problems(&files, stale).len(), 1, "{stale}");
    }
}

#[test]
fn the_finders_find_names() {
    let code = "pub struct A {\n    pub width: u8,\n}\nenum B {\n    One,\n    Two(u8),\n}\n\
                impl A {\n    pub async fn go(&self) {}\n}\nconst N: u8 = 1;\n";
    let found = definitions(code);
    for name in ["A", "width", "B", "One", "Two", "go", "N"] {
        assert!(found.contains(name), "{name}: {found:?}");
    }
    assert_eq!(
        rust_paths("`a::b::C`, Store::history() and x::y."),
        [
            vec!["Store", "history"],
            vec!["a", "b", "C"],
            vec!["x", "y"]
        ]
        .into_iter()
        .map(|p| p.into_iter().map(String::from).collect())
        .collect()
    );
    assert_eq!(
        single_names("`Plan`, `cards()`, `METRICS`, `curl`, `O_EXCL`"),
        ["METRICS", "Plan", "cards"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    assert!(placed_names("its flag added to `Plan` in `timer.rs` so")
        .contains(&("Plan".to_string(), "timer.rs".to_string())));
}

/// The files a source file's own `//!` doc names in backticks (`runs.rs`, `views/`).
fn doc_files(text: &str) -> BTreeSet<String> {
    let doc: String = text
        .lines()
        .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim_start_matches("//!")))
        .collect();
    doc.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            (w.ends_with(".rs") || (w.ends_with('/') && !w.starts_with('/')))
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        })
        .map(str::to_string)
        .collect()
}

/// Each room's doc names files that exist: beside it, in its crate, or from the top.
#[test]
fn the_rooms_docs_name_files_that_exist() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources: Vec<PathBuf> = modules().into_values().map(|s| s.path).collect();
    let mut missing = Vec::new();
    for file in &sources {
        let text = std::fs::read_to_string(file).unwrap();
        let here = file.parent().unwrap();
        let src = CRATES
            .iter()
            .map(|c| top.join(c.0))
            .filter(|dir| file.starts_with(dir))
            .max_by_key(|dir| dir.as_os_str().len())
            .unwrap();
        for named in doc_files(&text) {
            let path = named.trim_end_matches('/');
            let found = [here, src.as_path(), src.parent().unwrap(), top]
                .iter()
                .any(|dir| dir.join(path).exists())
                || sources.iter().any(|s| s.ends_with(path));
            if !found {
                missing.push(format!(
                    "{}: `{named}`",
                    file.strip_prefix(top).unwrap().display()
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "rooms' docs name files that are not there: {missing:#?}"
    );
}

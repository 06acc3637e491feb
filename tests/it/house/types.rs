//! The house's rules on types: a type's methods live in the file that defines it (or, for a
//! folder's `mod.rs`, in that folder's files), and a file that names a type another file
//! defines depends on that file as one that imports it does. Without them, one type whose
//! methods spread over many files (the store's was, over 14) lets those files call each other
//! through `self.` where no import shows it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{code, modules, name, Module, CRATES};

/// The names a file defines at its top level: `struct`, `enum`, `union`, `trait` and `type`.
fn defined(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut rest = line;
        for visibility in ["pub(crate) ", "pub(super) ", "pub "] {
            rest = rest.strip_prefix(visibility).unwrap_or(rest);
        }
        for keyword in ["struct ", "enum ", "union ", "trait ", "type "] {
            if let Some(after) = rest.strip_prefix(keyword) {
                let word = identifier(after);
                if !word.is_empty() {
                    out.push(word);
                }
            }
        }
    }
    out
}

/// The types a file gives methods of their own: `impl Name {`, `impl<'a> Name<'a> {`, never
/// `impl Trait for Name`.
fn inherent_impls(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let Some(mut head) = line.strip_prefix("impl").map(str::to_string) else {
            continue;
        };
        // A head may go on over lines (a long `where`): up to its brace.
        while !head.contains('{') {
            match lines.next() {
                Some(more) => head.push_str(more),
                None => break,
            }
        }
        let head = &head[..head.find('{').unwrap_or(head.len())];
        if head.contains(" for ") {
            continue;
        }
        let mut rest = head.trim_start();
        if rest.starts_with('<') {
            let mut depth = 0;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '<' => 1,
                        '>' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(rest.len(), |(at, _)| at + 1);
            rest = rest[end..].trim_start();
        }
        // `impl super::Doc {`: the type is the path's last word.
        let mut word = identifier(rest);
        while let Some(after) = rest[word.len()..].strip_prefix("::") {
            rest = after;
            word = identifier(rest);
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The capitalised words a file's code names by themselves: not in its `use` lines (the
/// imports' own graph has those) nor after a module's `::` (`io::Read`, `Op::Read` are not
/// ours).
fn words(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_use = false;
    for line in code.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("use ") || trimmed.starts_with("pub use ") {
            in_use = true;
        }
        if in_use {
            in_use = !line.contains(';');
            continue;
        }
        let mut start = None;
        for (at, c) in line.char_indices().chain([(line.len(), ' ')]) {
            match (c.is_ascii_alphanumeric() || c == '_', start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    let word = &line[from..at];
                    // After `::` only through the crate's root (`crate::Store`, a re-export
                    // the imports' graph cannot follow to its file).
                    let before = &line[..from];
                    let through_root = ["crate::", "super::", "self::"]
                        .iter()
                        .any(|root| before.ends_with(root));
                    if word.starts_with(|c: char| c.is_ascii_uppercase())
                        && (!before.ends_with("::") || through_root)
                    {
                        out.insert(word.to_string());
                    }
                    start = None;
                }
                _ => {}
            }
        }
    }
    out
}

/// The crate a file is of (its source folder).
fn crate_of(path: &Path) -> &'static str {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    CRATES
        .iter()
        .map(|c| c.0)
        .filter(|dir| path.starts_with(top.join(dir)))
        .max_by_key(|dir| dir.len())
        .unwrap()
}

/// Which file each file depends on by naming a type that file defines (each name defined in
/// one file of its crate only; never a file's own ancestors or descendants).
pub(super) fn type_edges() -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules();
    let mut owners: BTreeMap<(&str, String), Vec<Module>> = BTreeMap::new();
    for (module, source) in &modules {
        for ty in defined(&code(&source.path)) {
            owners
                .entry((crate_of(&source.path), ty))
                .or_default()
                .push(module.clone());
        }
    }
    let mut graph = BTreeMap::new();
    for (module, source) in &modules {
        let krate = crate_of(&source.path);
        let mut targets = BTreeSet::new();
        for word in words(&code(&source.path)) {
            let Some([owner]) = owners.get(&(krate, word)).map(Vec::as_slice) else {
                continue;
            };
            if !(owner.starts_with(module) || module.starts_with(owner)) {
                targets.insert(owner.clone());
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

#[test]
fn the_parser_finds_definitions_and_methods() {
    let code = "pub struct A<'a> {\n}\npub(crate) enum B {}\ntype C = u8;\n    type Item = u8;\n\
                impl<'a> A<'a> {\n}\nimpl Display for B {\n}\nimpl super::E {\n}\nimpl<T> D<T>\nwhere\n    T: Copy,\n{\n}\n";
    assert_eq!(defined(code), ["A", "B", "C"]);
    assert_eq!(inherent_impls(code), ["A", "E", "D"]);
}

#[test]
fn a_types_methods_live_in_its_own_file() {
    let modules = modules();
    let mut strays = Vec::new();
    for (module, source) in &modules {
        let own = defined(&code(&source.path));
        for ty in inherent_impls(&code(&source.path)) {
            if own.contains(&ty) {
                continue;
            }
            // A folder's files may extend the type their `mod.rs` defines (never `lib.rs`'s).
            let parent = &module[..module.len().saturating_sub(1)];
            let in_folder = modules.get(parent).is_some_and(|folder| {
                folder.path.ends_with("mod.rs") && defined(&code(&folder.path)).contains(&ty)
            });
            if !in_folder {
                strays.push(format!("{}: impl {ty}", name(module)));
            }
        }
    }
    assert!(
        strays.is_empty(),
        "methods away from their type's file (give the file a type of its own): {strays:#?}"
    );
}

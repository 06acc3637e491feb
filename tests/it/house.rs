//! The house's rules, read from the source (docs/ARCHITECTURE.md): data flows one way between
//! rooms, no two files of `src/` import each other (even inside one folder, even through a
//! third), no file holds more than 500 lines, and nothing under `commands/` ends the process.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rooms, in the order data flows: each may import only rooms after it. `main.rs` and
/// `lib.rs` hold the rooms and are left out.
const ROOMS: [&str; 21] = [
    "commands",
    "cli",
    "web",
    "output",
    "export",
    "store",
    "verify",
    "langs",
    "suite",
    "interrupt",
    "engine",
    "probe",
    "compare",
    "progress",
    "result",
    "reference",
    "stats",
    "units",
    "rng",
    "space",
    "dirs",
];

const MAX_LINES: usize = 500;

type Module = Vec<String>;

/// Every source file of `src/` as its module path (`store/mod.rs` is `["store"]`).
fn modules() -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|l| l == "mod") {
                module.pop();
            }
            (module, path)
        })
        .collect()
}

/// The code of a file without its unit tests and comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| match line.trim_start().starts_with("//") {
            true => "",
            false => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths `crate::…` and `super::…` a file names, each group `{a, b::c}` expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(found) = code[at..].find(['c', 's']) {
        let start = at + found;
        at = start + 1;
        let rest = &code[start..];
        let head = if rest.starts_with("crate::") {
            "crate"
        } else if rest.starts_with("super::") {
            "super"
        } else {
            continue;
        };
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let mut path = vec![head.to_string()];
        let mut rest = &rest[head.len()..];
        while let Some(next) = rest.strip_prefix("::") {
            if let Some(group) = next.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let mut full = path.clone();
                    full.extend(
                        item.split("::")
                            .map(|w| w.trim().trim_start_matches('{').to_string())
                            .filter(|w| !w.is_empty() && w != "self"),
                    );
                    out.push(full);
                }
                break;
            }
            let word: String = next
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if word.is_empty() {
                break;
            }
            rest = &next[word.len()..];
            path.push(word);
        }
        out.push(path);
    }
    out
}

/// Which file each file imports (never its own ancestors or descendants: a folder's `mod.rs`
/// holding what its files share is not a circle).
fn imports() -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules();
    let mut graph = BTreeMap::new();
    for (module, path) in &modules {
        let mut targets = BTreeSet::new();
        for reference in paths(&code(path)) {
            let mut full: Module = Vec::new();
            if reference[0] == "super" {
                full = module.clone();
                for word in &reference {
                    if word == "super" {
                        full.pop();
                    } else {
                        full.push(word.clone());
                    }
                }
            } else {
                full.extend(reference[1..].iter().cloned());
            }
            let target = (0..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| modules.contains_key(m))
                .unwrap_or_default();
            let related = target.starts_with(module) || module.starts_with(&target);
            let main = target == ["main"];
            if !(target.is_empty() || related || main) {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

fn name(module: &Module) -> String {
    module.join("/")
}

#[test]
fn the_parser_finds_what_a_file_names() {
    let found = paths("use super::{a::B, c};\nuse crate::store::{self, Location};\nx::crate_y");
    assert!(found.contains(&vec!["super".into(), "a".into(), "B".into()]));
    assert!(found.contains(&vec!["super".into(), "c".into()]));
    assert!(found.contains(&vec!["crate".into(), "store".into(), "Location".into()]));
    assert_eq!(found.len(), 6, "{found:?}");
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let graph = imports();
    // Every file from which `from` can be reached again is in a circle with it.
    let mut circles = BTreeSet::new();
    for from in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Module> = graph[from].iter().collect();
        while let Some(next) = stack.pop() {
            if next == from {
                circles.insert(name(from));
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(graph.get(next).into_iter().flatten());
            }
        }
    }
    assert!(
        circles.is_empty(),
        "these files are in import circles: {circles:?}"
    );
}

#[test]
fn data_flows_one_way_between_rooms() {
    let graph = imports();
    let rank = |module: &Module| {
        ROOMS
            .iter()
            .position(|r| module.first().is_some_and(|m| m == r))
    };
    let mut backwards = Vec::new();
    for (from, targets) in &graph {
        let Some(here) = rank(from) else {
            assert!(
                matches!(
                    from.first().map(String::as_str),
                    None | Some("lib" | "main")
                ),
                "{} is in no room: add it to ROOMS and to docs/ARCHITECTURE.md",
                name(from)
            );
            continue;
        };
        for to in targets {
            let there = rank(to).unwrap_or_else(|| panic!("{} is in no room", name(to)));
            if there < here {
                backwards.push(format!("{} → {}", name(from), name(to)));
            }
        }
    }
    assert!(
        backwards.is_empty(),
        "imports against the flow: {backwards:#?}"
    );
}

#[test]
fn rooms_stay_small_and_commands_never_exit() {
    let mut big = Vec::new();
    for (module, path) in modules() {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = text.lines().count();
        if lines > MAX_LINES {
            big.push(format!("{} ({lines} lines)", path.display()));
        }
        if module.first().is_some_and(|m| m == "commands") {
            assert!(
                !code(&path).contains("process::exit"),
                "{}: a command returns (a `Stopped` error for a signal); main exits",
                path.display()
            );
        }
    }
    assert!(big.is_empty(), "files over {MAX_LINES} lines: {big:?}");
}

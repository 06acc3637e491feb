//! The house's rules, read from the source (docs/ARCHITECTURE.md): data flows one way between
//! rooms, no two files of the workspace depend on each other (by an import or a type they name,
//! even inside one folder, even through a third), a type's methods live in its own file
//! (`types.rs`), no file holds more than 500 lines, and nothing under `commands/` ends the
//! process.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod names;
mod types;

/// The rooms, in the order data flows: each may import only rooms after it. `main.rs` and
/// `lib.rs` hold the rooms and are left out.
const ROOMS: [&str; 25] = [
    "commands",
    "cli",
    "app",
    "web",
    "output",
    "export",
    "store",
    "health",
    "verify",
    "langs",
    "suite",
    "interrupt",
    "engine",
    "probe",
    "profiles",
    "compare",
    "progress",
    "events",
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

/// Where each crate's source lies and the room its `lib.rs` is: a crate of one room
/// (`crates/store`) is that room, so its `lib.rs` is `["store"]`; a crate of several rooms
/// holds them as modules, and the binary's own `src/` holds `cli`, `commands` and `output`.
/// The second column is how other crates name it (`iomark_store::Store` is `store::Store`).
const CRATES: [(&str, &str, &[&str]); 9] = [
    ("src", "iomark", &[]),
    ("crates/os/src", "iomark_os", &[]),
    ("crates/result/src", "iomark_result", &[]),
    ("crates/profiles/src", "iomark_profiles", &["profiles"]),
    ("crates/core/src", "iomark_core", &[]),
    ("crates/store/src", "iomark_store", &["store"]),
    ("crates/export/src", "iomark_export", &["export"]),
    ("crates/site/src", "iomark_site", &["web"]),
    ("crates/app/src", "iomark_app", &["app"]),
];

/// A source file: its module path as the rooms see it (`crates/store/src/history.rs` is
/// `["store", "history"]`) and the room its crate's `crate::` names.
struct Source {
    path: PathBuf,
    crate_root: Module,
}

/// Every source file of the workspace by its module path.
fn modules() -> BTreeMap<Module, Source> {
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
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = BTreeMap::new();
    for (dir, _, root) in CRATES {
        let src = top.join(dir);
        let mut files = Vec::new();
        walk(&src, &mut files);
        let crate_root: Module = root.iter().map(|r| r.to_string()).collect();
        for path in files {
            let rel = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module = crate_root.clone();
            module.extend(
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned()),
            );
            if module.last().is_some_and(|l| l == "mod" || l == "lib") {
                module.pop();
            }
            if module.is_empty() {
                // A crate of several rooms: its lib.rs only declares them.
                continue;
            }
            let source = Source {
                path,
                crate_root: crate_root.clone(),
            };
            assert!(
                all.insert(module.clone(), source).is_none(),
                "{module:?} twice"
            );
        }
    }
    all
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

/// The paths `crate::…`, `super::…` and `iomark_CRATE::…` a file names, each group `{a, b::c}`
/// expanded; the first word is the head as written.
fn paths(code: &str) -> Vec<Vec<String>> {
    let heads: Vec<&str> = ["crate", "super"]
        .into_iter()
        .chain(CRATES.iter().map(|c| c.1))
        .collect();
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(found) = code[at..].find(['c', 's', 'i']) {
        let start = at + found;
        at = start + 1;
        let rest = &code[start..];
        let Some(head) = heads
            .iter()
            .find(|h| rest.starts_with(&format!("{h}::")))
            .copied()
        else {
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
                            .map(|w| w.trim().trim_start_matches('{'))
                            .map(|w| w.split(" as ").next().unwrap_or_default().to_string())
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
    for (module, source) in &modules {
        let mut targets = BTreeSet::new();
        for reference in paths(&code(&source.path)) {
            let mut full: Module = Vec::new();
            match reference[0].as_str() {
                "super" => {
                    full = module.clone();
                    for word in &reference {
                        if word == "super" {
                            full.pop();
                        } else {
                            full.push(word.clone());
                        }
                    }
                }
                "crate" => {
                    full.extend(source.crate_root.iter().cloned());
                    full.extend(reference[1..].iter().cloned());
                }
                other => {
                    let (_, _, root) = CRATES.iter().find(|c| c.1 == other).unwrap();
                    full.extend(root.iter().map(|r| r.to_string()));
                    full.extend(reference[1..].iter().cloned());
                }
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
    let found = paths(
        "use super::{a::B, c};\nuse crate::store::{self, Location};\nx::crate_y\n\
         use iomark_store::{self as store, Store};",
    );
    assert!(found.contains(&vec!["super".into(), "a".into(), "B".into()]));
    assert!(found.contains(&vec!["super".into(), "c".into()]));
    assert!(found.contains(&vec!["crate".into(), "store".into(), "Location".into()]));
    assert!(found.contains(&vec!["iomark_store".into(), "Store".into()]));
    assert_eq!(found.len(), 9, "{found:?}");
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    // What a file imports, and the files whose types it names (calls through a type).
    let mut graph = imports();
    for (module, named) in types::type_edges() {
        graph.entry(module).or_default().extend(named);
    }
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
    for (module, Source { path, .. }) in modules() {
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

/// Nothing in the crates reads arguments, prints or exits: that is the binary's (its `output`
/// and `main`). The exceptions are named: the second Ctrl-C says so and ends the process at once
/// (`interrupt`), and the site's log goes to standard error (`metrics.rs`).
#[test]
fn the_crates_neither_print_nor_exit() {
    const DEEDS: [&str; 8] = [
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "process::exit",
        "io::stderr",
        "io::stdout",
        "env::args",
    ];
    const ALLOWED: [(&str, &str); 3] = [
        ("crates/core/src/interrupt.rs", "io::stderr"),
        ("crates/core/src/interrupt.rs", "process::exit"),
        ("crates/site/src/metrics.rs", "io::stderr"),
    ];
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for Source { path, .. } in modules().into_values() {
        let file = path
            .strip_prefix(top)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !file.starts_with("crates/") {
            continue;
        }
        let code = code(&path);
        // A word of its own: `println!` is not in `eprintln!`.
        let does = |deed: &str| {
            code.match_indices(deed).any(|(at, _)| {
                !code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        };
        for deed in DEEDS {
            if does(deed) && !ALLOWED.contains(&(file.as_str(), deed)) {
                found.push(format!("{file}: {deed}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the crates print, exit or read arguments (return it to the binary): {found:#?}"
    );
}

/// The binary writes to the terminal only through `output` (`say!`, `note!`, `to_stderr`): the
/// standard macros panic on a closed pipe (`iomark submit … 2>&1 | head -1` did, exit 101).
#[test]
fn the_binary_never_prints_through_what_panics_on_a_closed_pipe() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for Source { path, .. } in modules().into_values() {
        if !path.starts_with(top.join("src")) {
            continue;
        }
        let code = code(&path);
        for deed in ["println!", "eprintln!", "print!(", "eprint!("] {
            if code.contains(deed) {
                found.push(format!(
                    "{}: {deed}",
                    path.strip_prefix(top).unwrap().display()
                ));
            }
        }
    }
    let main = std::fs::read_to_string(top.join("src/main.rs")).unwrap();
    if main.contains("println!") || main.contains("print!(") {
        found.push("src/main.rs".into());
    }
    assert!(
        found.is_empty(),
        "prints that panic on a closed pipe: {found:#?}"
    );
}

/// The paths a document names (in backticks, or in its diagrams): each starts at a top folder
/// of the repository or ends in a file's extension.
fn named_paths(text: &str) -> BTreeSet<String> {
    const TOPS: [&str; 8] = [
        "src/",
        "crates/",
        "tests/",
        "docs/",
        "bench/",
        "packaging/",
        "langs/",
        "examples/",
    ];
    const ENDS: [&str; 7] = [".rs", ".md", ".toml", ".cfg", ".html", ".sql", ".service"];
    text.split(|c: char| c.is_whitespace() || "`(),;:|{}→←".contains(c))
        .map(|word| word.trim_end_matches('.'))
        .filter(|word| {
            word.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/-*".contains(c))
                && !word.starts_with('/')
                && (TOPS.iter().any(|t| word.starts_with(t))
                    || ENDS.iter().any(|e| word.ends_with(e)))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_map_names_only_what_exists() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(top.join("docs/ARCHITECTURE.md")).unwrap();
    let named = named_paths(&map);
    assert!(
        named.contains("crates/core/src/engine/target.rs"),
        "{named:?}"
    );
    // A file named alone (`plan.rs`, `store/site.rs`) is looked for in every crate's source.
    let sources: Vec<PathBuf> = modules().into_values().map(|s| s.path).collect();
    let missing: Vec<&String> = named
        .iter()
        .filter(|name| {
            let path = name.trim_end_matches("/*").trim_end_matches('/');
            !top.join(path).exists()
                && !sources.iter().any(|s| s.ends_with(path))
                && !sources
                    .iter()
                    .any(|s| s.parent().is_some_and(|d| d.ends_with(path)))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names what does not exist: {missing:?}"
    );
}

#[test]
fn the_path_finder_finds_paths() {
    let found = named_paths(
        "see `crates/core/src/engine/target.rs`, plan.rs → x::y (`iomark.result/1`) /api/v1/",
    );
    assert!(found.contains("crates/core/src/engine/target.rs"));
    assert!(found.contains("plan.rs"));
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn the_graph_follows_imports_across_crates() {
    let graph = imports();
    let of = |m: &[&str]| -> &BTreeSet<Module> {
        &graph[&m.iter().map(|s| s.to_string()).collect::<Module>()]
    };
    // `use iomark_store::…` in the site, `iomark_result::…` in the core, `crate::…` in a crate
    // of one room, and `super::…` between a room's files.
    assert!(of(&["web", "api"]).contains(&vec!["store".to_string()]));
    assert!(of(&["profiles", "sdcard"]).contains(&vec!["result".to_string(), "score".to_string()]));
    assert!(of(&["web", "intake"]).contains(&vec!["result".to_string()]));
    let views = ["web".to_string(), "views".to_string()];
    assert!(of(&["web", "api"]).iter().any(|m| m.starts_with(&views)));
}

const MAX_FUNCTION_LINES: usize = 120;

/// Each function of a file's code (without its unit tests and comments): its name and lines.
fn functions(code: &str) -> Vec<(String, usize)> {
    // Braces inside string and character literals are not the code's.
    let mut plain = String::with_capacity(code.len());
    let (mut in_string, mut escaped) = (false, false);
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            if c == '\n' {
                plain.push('\n');
            }
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
        } else if c == '\'' && i + 2 < chars.len() && chars[i + 2] == '\'' {
            i += 2;
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            // An escape (`'\''`, `'\n'`, `'\u{7b}'`): its closing quote is past the escaped
            // character.
            i += 3;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
        } else {
            plain.push(c);
        }
        i += 1;
    }
    let lines: Vec<&str> = plain.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(at) = line.find("fn ") else { continue };
        let before = line[..at].trim();
        let words = [
            "",
            "pub",
            "pub(crate)",
            "pub(super)",
            "async",
            "const",
            "unsafe",
        ];
        if !before.split_whitespace().all(|w| words.contains(&w)) {
            continue;
        }
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i32;
        let mut opened = false;
        for (end, text) in lines.iter().enumerate().skip(start) {
            for c in text.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (opened && depth <= 0) || (!opened && text.trim_end().ends_with(';')) {
                if opened {
                    found.push((name.clone(), end - start + 1));
                }
                break;
            }
        }
    }
    found
}

#[test]
fn no_function_is_over_its_bound() {
    let mut long = Vec::new();
    for Source { path, .. } in modules().into_values() {
        for (name, lines) in functions(&code(&path)) {
            if lines > MAX_FUNCTION_LINES {
                long.push(format!("{}: {name} ({lines} lines)", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines outside tests: {long:#?}"
    );
}

#[test]
fn functions_are_measured_from_their_braces() {
    let code = "pub fn a() {\n    let s = \"}\";\n    if x { '{' } else { '}' }\n}\nfn b();\n\
                async fn c(\n    x: u8,\n) -> u8 {\n    x\n}\n\
                fn d<'a>(x: &'a str) {\n    if c == '\\'' || c == '\\u{7d}' { y('}') }\n}\n";
    assert_eq!(
        functions(code),
        vec![
            ("a".to_string(), 4),
            ("c".to_string(), 5),
            ("d".to_string(), 3)
        ]
    );
}

//! `iomark langs`: the device's own sequential rate, then each language's program, checked,
//! then the table, the result document and the store.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};

use crate::cli::LangsArgs;
use crate::engine::{self, target::TestFile, EngineChoice, Live};
use crate::langs::{self, program, toolchain};
use crate::output::{langs as table, progress::Progress, Style};
use crate::result::langs::{LangResult, Section, Skipped};
use crate::result::{self, ResultDoc};
use crate::suite::{self, Observer, Options, Phase, Plan, Profile};

pub fn run(args: LangsArgs) -> anyhow::Result<()> {
    let dir = super::run::directory(args.path.as_deref())?;
    // Every destination is checked before anything is measured.
    let json = super::check_destinations(args.no_save, &args.store, args.json.as_deref())?;
    let selected: Vec<&'static langs::Lang> = langs::LANGS
        .iter()
        .filter(|l| args.only.is_empty() || args.only.iter().any(|o| o == l.name))
        .collect();
    for variant in &args.variants {
        if !selected
            .iter()
            .any(|l| l.variants.iter().any(|(v, _)| v == variant))
        {
            let known: Vec<String> = selected
                .iter()
                .flat_map(|l| {
                    l.variants
                        .iter()
                        .map(move |(v, _)| format!("{}/{v}", l.name))
                })
                .collect();
            bail!(
                "--variants: no language has a variant '{variant}' (variants: {})",
                known.join(", ")
            );
        }
    }
    if let Some(cpu) = args.cpu {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cpu >= cpus {
            bail!("--cpu {cpu}: this machine's CPUs are 0 to {}", cpus - 1);
        }
    }
    let spec = program::Spec {
        bytes: args.bytes,
        reps: args.reps,
        cold: args.cold,
        cpu: args.cpu,
    };
    let progress = Progress::new(Style::stderr());
    let host = crate::probe::host::probe(Path::new("/"));
    let target = crate::probe::local_target(&dir);
    let started_at = result::now_rfc3339();

    // Toolchains first: a missing one is a note, not a failure.
    let cache = toolchain::cache_root()?;
    let mut ready = Vec::new();
    let mut skipped = Vec::new();
    for lang in &selected {
        progress.line(&format!(
            "{:<8} checking the toolchain and building…",
            lang.name
        ));
        match toolchain::prepare(lang, &cache) {
            Ok(r) => ready.push(r),
            Err(reason) => {
                progress.line(&format!("{:<8} skipped: {reason}", lang.name));
                skipped.push(Skipped {
                    extra: Default::default(),
                    lang: lang.name.into(),
                    reason: reason.to_string(),
                });
            }
        }
    }
    if ready.is_empty() {
        bail!(
            "no language could be run ({}): install a toolchain, e.g. apt-get install gcc python3",
            skipped
                .iter()
                .map(|s| format!("{}: {}", s.lang, s.reason))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }

    // The device's own sequential rate, through the engine, direct.
    let (engine, _) = engine::select(EngineChoice::Auto).context("no I/O engine")?;
    let mut options = Options::of(Profile::Langs);
    // Over a file the programs' size, within 16 MiB and the profile's own 256 MiB.
    options.size = Some(args.bytes.clamp(16 << 20, suite::standard::LANGS_FILE));
    let plan = Plan::new(options, target.free_bytes)?;
    let device = suite::run(&plan, &dir, engine, &progress, &target)?;

    // The programs, each on a fresh test file of this run's own.
    let mut results = Vec::new();
    for r in &ready {
        for (variant, about) in r.lang.variants {
            if !args.variants.is_empty() && !args.variants.iter().any(|v| v == variant) {
                continue;
            }
            let file = TestFile::create(&dir, args.bytes, false)?;
            let live = Arc::new(Live::default());
            progress.started(
                &Phase::Bytes {
                    label: format!("{}/{variant}", r.lang.name),
                    bytes: 2 * args.bytes * u64::from(args.reps),
                },
                live.clone(),
            );
            let command = r.lang.command_for(&r.command, variant);
            // 2019's programs remove the file and make their own under its name (iomark's own
            // unique name): that one goes by name, on a signal or when the program is done.
            let remade = *variant == langs::VARIANT_2019;
            if remade {
                crate::interrupt::remove_on_signal(file.path());
            }
            let lines = program::run(&command, r.lang.name, variant, file.path(), spec, |l| {
                live.add(l.bytes)
            });
            if remade {
                if std::fs::symlink_metadata(file.path()).is_ok_and(|m| m.is_file()) {
                    let _ = std::fs::remove_file(file.path());
                }
                crate::interrupt::forget_on_signal(file.path());
            }
            progress.finished(None);
            let lines = lines.map_err(|e| anyhow::anyhow!("{}/{variant}: {e}", r.lang.name))?;
            let (write, read) = program::figures(&lines, spec);
            results.push(LangResult {
                extra: Default::default(),
                lang: r.lang.name.into(),
                variant: variant.to_string(),
                about: about.to_string(),
                runtime: r.runtime.clone(),
                build_flags: r.build_flags.clone(),
                write,
                read,
            });
        }
    }
    drop(progress);

    let section = Section {
        extra: Default::default(),
        bytes: args.bytes,
        reps: args.reps,
        cold: args.cold,
        cpu: args.cpu,
        results,
        skipped,
    };
    // `settings` describes `tests`, the device's own; the programs' settings are the section's.
    let mut doc = ResultDoc::new(host, target, started_at, device.settings);
    doc.label = args.label.clone();
    doc.tests = device.tests;
    doc.warnings = device.warnings;
    doc.warnings.extend(suite::verdicts::langs_variation(
        &section.results,
        args.cpu.is_some(),
    ));
    doc.langs = Some(section);
    super::publish(
        &doc,
        |style| table::render(&doc, style),
        json,
        (!args.no_save).then_some(&args.store),
        false,
    )
}

//! `iomark langs`: the device's own sequential rate, then each language's program, checked,
//! then the table, the result document and the store.

use anyhow::{bail, Context};

use super::destination::directory;
use super::outputs::{Begun, Outputs};
use crate::cli::{LangsArgs, ProgressArg};
use crate::output::langs as table;
use iomark_core::engine::{self, EngineChoice};
use iomark_core::langs::{self, program, toolchain};
use iomark_core::suite::{self, Options, Plan, Profile};
use iomark_profiles::standard::LANGS_FILE;
use iomark_result::result::langs::{Section, Skipped};

pub fn run(args: LangsArgs) -> anyhow::Result<()> {
    let dir = directory(args.path.as_deref())?;
    // Every destination is checked before anything is measured.
    let outputs = Outputs::settle(&args.result, ProgressArg::Auto, false)?;
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
    let progress = outputs.progress();
    let begun = Begun::now();
    let target = iomark_core::probe::local_target(&dir);
    // Each program's file, and the device's own, are args.bytes at most; said here with the
    // option langs has, before any toolchain is built.
    let need = args.bytes + iomark_core::engine::target::headroom(args.bytes);
    if let Some(free) = target.free_bytes.filter(|free| *free < need) {
        bail!(
            "{}: not enough free space: langs writes files of {} and needs {}; {} is free \
             (use --bytes for smaller files)",
            dir.display(),
            iomark_result::units::format_size(args.bytes),
            iomark_result::units::format_size(need),
            iomark_result::units::format_size(free)
        );
    }

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
    options.size = Some(args.bytes.clamp(16 << 20, LANGS_FILE));
    let plan = Plan::new(options, target.free_bytes)?;
    let device = suite::run(&plan, &dir, engine, &progress, &target)?;

    // The programs, each on a fresh test file of this run's own.
    let results = langs::measure(&ready, &args.variants, &dir, spec, &progress)?;
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
    let mut doc = outputs.document(begun, target, device.settings);
    doc.tests = device.tests;
    doc.warnings = device.warnings;
    doc.warnings.extend(suite::verdicts::langs_variation(
        &section.results,
        args.cpu.is_some(),
    ));
    doc.langs = Some(section);
    outputs.publish(&doc, |style| table::render(&doc, style))
}

//! `iomark run`: options → plan → suite on the engine → result document → table and JSON.

use super::write_stdout;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::cli::RunArgs;
use crate::engine::{self, EngineChoice};
use crate::output::{progress::Progress, table, Style};
use crate::result::{self, ResultDoc, Settings, Tool};
use crate::suite::{self, aggregate, Plan};

/// Turns the arguments into a checked plan.
pub fn plan(args: &RunArgs, dir: &Path) -> anyhow::Result<Plan> {
    let profile = suite::profile(&args.profile)
        .with_context(|| format!("--profile: unknown profile '{}'", args.profile))?;
    let mut plan = Plan {
        profile: profile.name.to_string(),
        tests: profile.tests,
        file_size: match args.size {
            Some(size) => size,
            // A sustained write defaults to the smaller of 16 GiB and half the free space.
            None if profile.name == "sustained" => {
                let (free, _) = crate::engine::target::free_space(dir)
                    .with_context(|| format!("{}: cannot read free space", dir.display()))?;
                suite::sustained::default_size(free)
            }
            None => profile.file_size,
        },
        loops: args.loops.unwrap_or(profile.loops),
        duration: args.duration.unwrap_or(profile.duration),
        warmup: args.warmup.unwrap_or(profile.warmup),
        data: args.data.into(),
        direct: !args.buffered,
        live: args.live,
        fill: profile.fill,
        thermometer: Some(crate::probe::thermal::local),
        score: profile.score,
    };
    plan.select(&args.tests).map_err(anyhow::Error::msg)?;
    if !args.claimed.is_empty() && plan.profile != "sdcard" {
        anyhow::bail!("--claimed: only the sdcard profile judges SD classes");
    }
    if let Some(count) = args.count {
        plan.set_count(count).map_err(anyhow::Error::msg)?;
    }
    plan.fit_file_size().map_err(anyhow::Error::msg)?;
    Ok(plan)
}

/// Where the test runs: PATH, checked to be an existing directory, made absolute so that every
/// report names it unambiguously.
pub(crate) fn directory(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(std::fs::canonicalize(&dir).unwrap_or(dir)),
        Ok(_) => bail!(
            "{}: not a directory (give the directory to test, on the filesystem to measure)",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{}: no such directory", dir.display())
        }
        Err(e) => bail!("{}: {e}", dir.display()),
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let dir = directory(args.path.as_deref())?;
    let plan = plan(&args, &dir)?;
    let choice: EngineChoice = args.engine.into();
    let (backend, fallback) = engine::select(choice).context("--engine io_uring")?;

    if args.print_fio {
        let text = suite::fio::job_file(&plan, &dir, backend.name());
        return write_stdout(text.as_bytes());
    }

    let host = crate::probe::host::probe(Path::new("/"));
    let target = crate::probe::local_target(&dir);
    let started_at = result::now_rfc3339();

    let progress = Progress::new(Style::stderr());
    let mut warnings = Vec::new();
    if let Some(reason) = &fallback {
        let warning = aggregate::engine_fallback(reason);
        progress.line(&format!("note: {}", warning.message));
        warnings.push(warning);
    }
    warnings.extend(crate::probe::bottleneck::warnings(&host, &target));
    let outcome = suite::run(&plan, &dir, backend.as_ref(), &progress)?;
    drop(progress);
    warnings.extend(outcome.warnings);
    if plan.profile == "pi" && plan.file_size != suite::pi::FILE_SIZE {
        warnings.push(result::Warning {
            kind: "pi_score_not_comparable".into(),
            message:
                "--size changed the pi profile's file sizes: the score is not comparable with \
                      pibenchmarks.com (run without --size for that)"
                    .into(),
        });
    }
    if let Some(score) = outcome.score.as_ref().filter(|_| plan.profile == "sdcard") {
        let claimed = if args.claimed.is_empty() {
            target
                .device
                .as_ref()
                .and_then(|d| d.sd.as_ref())
                .map(|sd| sd.claimed_classes.clone())
                .unwrap_or_default()
        } else {
            args.claimed.clone()
        };
        for class in suite::sdcard::failed_claims(score, &claimed) {
            warnings.push(result::Warning {
                kind: "fails_claimed_class".into(),
                message: format!(
                    "the card claims {class} but does not meet it here (see the class table): a fake or worn card, \
                     or a reader or host that holds it back"
                ),
            });
        }
    }
    let link = target
        .device
        .as_ref()
        .and_then(|d| d.usb.as_ref())
        .and_then(|u| u.speed_mbps);
    if let Some(link_mbps) = link {
        warnings.extend(aggregate::beyond_link(&outcome.tests, link_mbps));
    }

    let doc = ResultDoc {
        schema: result::SCHEMA.into(),
        id: result::new_id(),
        tool: Tool::this(),
        started_at,
        finished_at: result::now_rfc3339(),
        label: args.label.clone(),
        price_usd: None,
        host,
        target,
        settings: Settings {
            profile: plan.profile.clone(),
            file_size_bytes: plan.file_size,
            loops: plan.loops,
            duration_s: plan.duration.as_secs_f64(),
            warmup_s: plan.warmup.as_secs_f64(),
            engine: backend.name().into(),
            direct: outcome.direct,
            data: plan.data.as_str().into(),
            count: plan.tests.iter().find_map(|t| t.ios),
        },
        tests: outcome.tests,
        warnings,
        score: outcome.score,
        langs: None,
    };

    let file_path = outcome.file_path.display().to_string();
    super::publish(
        &doc,
        |style| table::render(&doc, Some(&file_path), style),
        args.json.as_deref(),
        (!args.no_save).then_some(&args.store),
    )
}

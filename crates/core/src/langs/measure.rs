//! Each ready program run over a fresh test file of this run's own, for each variant asked
//! for, its lines checked and made into figures, with progress for whoever watches.

use std::path::Path;
use std::sync::Arc;

use super::program::{self, Spec};
use super::toolchain::Ready;
use super::VARIANT_2019;
use crate::engine::target::TestFile;
use crate::progress::{Live, Observer, Phase};
use iomark_result::result::langs::LangResult;

/// Runs every ready program's variants (those in `variants`, or all where it is empty) in
/// `dir`, in order.
pub fn measure(
    ready: &[Ready],
    variants: &[String],
    dir: &Path,
    spec: Spec,
    observer: &dyn Observer,
) -> anyhow::Result<Vec<LangResult>> {
    let mut results = Vec::new();
    for r in ready {
        for (variant, about) in r.lang.variants {
            if !variants.is_empty() && !variants.iter().any(|v| v == variant) {
                continue;
            }
            let file = TestFile::create(dir, spec.bytes, false)?;
            let live = Arc::new(Live::default());
            observer.started(
                &Phase::Bytes {
                    label: format!("{}/{variant}", r.lang.name),
                    bytes: 2 * spec.bytes * u64::from(spec.reps),
                },
                live.clone(),
            );
            let command = r.lang.command_for(&r.command, variant);
            // 2019's programs remove the file and make their own under its name (iomark's own
            // unique name): that one goes by name, on a signal or when the program is done.
            let remade = *variant == VARIANT_2019;
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
            let lines = match lines {
                Ok(lines) => lines,
                Err(e) => {
                    observer.finished(None);
                    anyhow::bail!("{}/{variant}: {e}", r.lang.name);
                }
            };
            let (write, read) = program::figures(&lines, spec);
            // The figures the table will show, not the bytes over the program's whole life.
            observer.finished_saying(&format!(
                "write {:.1} MB/s, read {:.1} MB/s",
                write.mb_per_s, read.mb_per_s
            ));
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
    Ok(results)
}

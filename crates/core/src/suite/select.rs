//! Which tests a run keeps: the `--test` names a profile holds, the CrystalDiskMark names a
//! table runs besides (`RND4K_Q32T16_read`), and `--threads` over a table's tests.

use crate::engine::Op;
use iomark_profiles::spec::{TestSpec, MAX_IN_FLIGHT};
use iomark_profiles::Profile;

/// Why a selection cannot be made; each message names the flag at fault.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("--test: no test '{wanted}' in profile {profile} (tests: {known})")]
    UnknownTest {
        wanted: String,
        profile: &'static str,
        known: String,
    },
    #[error("--test {0}")]
    BadTest(String),
    #[error(
        "--threads: the {0} profile's tests are its method; threads apply to the standard, quick \
         and nvme tables"
    )]
    ThreadsFixed(&'static str),
    #[error(
        "--threads: {test} would keep more than {most} I/Os in flight (queue depth times threads)"
    )]
    TooManyInFlight { test: String, most: u32 },
}

/// The tests kept, and whether the file must be filled before them.
pub struct Selection {
    pub tests: Vec<TestSpec>,
    pub fill: bool,
}

/// Keeps the tests of `tests` named in `names` (case-insensitive; a row name such as
/// `SEQ1M_Q8T1` selects both its read and its write test), in the profile's order; a table
/// profile then runs any other name of CrystalDiskMark's shape, in the order given.
pub fn select(
    profile: Profile,
    mut tests: Vec<TestSpec>,
    names: &[String],
) -> Result<Selection, SelectError> {
    let names_it =
        |t: &TestSpec, n: &str| t.name().eq_ignore_ascii_case(n) || t.row().eq_ignore_ascii_case(n);
    let mut named: Vec<TestSpec> = Vec::new();
    for wanted in names {
        if tests.iter().chain(&named).any(|t| names_it(t, wanted)) {
            continue;
        }
        match TestSpec::parse(wanted) {
            Ok(Some(specs)) if profile.is_table() => named.extend(specs),
            Err(reason) if profile.is_table() => return Err(SelectError::BadTest(reason)),
            _ => {
                let all: Vec<String> = tests.iter().map(TestSpec::name).collect();
                return Err(SelectError::UnknownTest {
                    wanted: iomark_result::result::printable(wanted).into_owned(),
                    profile: profile.name(),
                    known: all.join(", "),
                });
            }
        }
    }
    let selected = |t: &TestSpec| names.iter().any(|n| names_it(t, n));
    // A profile that skips the fill relies on its first test writing the whole file; if the
    // selection drops that test, reads would meet never-written blocks (which the filesystem
    // answers with zeros, without touching the device), so the file is filled after all.
    let writes_all = |t: &TestSpec| t.whole_file && t.op == Op::Write && t.span.is_none();
    let fill = tests
        .iter()
        .chain(&named)
        .find(|t| selected(t))
        .is_some_and(|first| !writes_all(first));
    tests.retain(selected);
    tests.extend(named);
    Ok(Selection { tests, fill })
}

/// A table's tests, each on `threads` threads (`--threads`).
pub fn on_threads(
    profile: Profile,
    tests: Vec<TestSpec>,
    threads: u32,
) -> Result<Vec<TestSpec>, SelectError> {
    if !profile.is_table() {
        return Err(SelectError::ThreadsFixed(profile.name()));
    }
    let tests: Vec<TestSpec> = tests.into_iter().map(|t| t.on_threads(threads)).collect();
    match tests
        .iter()
        .find(|t| t.queue_depth * t.threads > MAX_IN_FLIGHT)
    {
        Some(test) => Err(SelectError::TooManyInFlight {
            test: test.name(),
            most: MAX_IN_FLIGHT,
        }),
        None => Ok(tests),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pattern;
    use crate::suite::Plan;

    fn names(tests: &[TestSpec]) -> Vec<String> {
        tests.iter().map(TestSpec::name).collect()
    }

    #[test]
    fn a_table_runs_any_crystaldiskmark_name() {
        let standard = Profile::Standard.defaults().tests;
        let wanted: Vec<String> = ["rnd4k_q32t16_read", "RND4K_Q1T1", "SEQ128K_Q32T2"]
            .map(String::from)
            .to_vec();
        let kept = select(Profile::Standard, standard.clone(), &wanted).unwrap();
        assert_eq!(
            names(&kept.tests),
            [
                "RND4K_Q1T1_read",
                "RND4K_Q1T1_write",
                "RND4K_Q32T16_read",
                "SEQ128K_Q32T2_read",
                "SEQ128K_Q32T2_write"
            ]
        );
        let t16 = &kept.tests[2];
        assert_eq!(
            (
                t16.pattern,
                t16.block_size,
                t16.queue_depth,
                t16.threads,
                t16.op
            ),
            (Pattern::Random, 4096, 32, 16, Op::Read)
        );
        // Out of bounds: one line naming the limit.
        for (name, says) in [
            ("RND4K_Q32T65_read", "threads must be 1 to 64"),
            ("RND4K_Q0T1_read", "queue depth must be 1 to 512"),
            ("RND1K_Q1T1", "whole number of 4 KiB"),
            ("SEQ128M_Q1T1", "at most 64 MiB"),
            ("RND4K_Q64T32_read", "at most 1024 I/Os in flight"),
        ] {
            let error = select(Profile::Quick, standard.clone(), &[name.into()])
                .err()
                .unwrap()
                .to_string();
            assert!(error.starts_with(&format!("--test {name}: ")), "{error}");
            assert!(error.contains(says), "{error}");
        }
        // Not of the shape, or a profile whose tests are its method: unknown, listing them.
        for (profile, name) in [
            (Profile::Standard, "RND4K_Q1"),
            (Profile::Standard, "SEQ1M_Q8T1_trim"),
            (Profile::Standard, "RNDX4K_Q1T1_read"),
            (Profile::Pi, "RND4K_Q1T1_read"),
        ] {
            let error = select(profile, profile.defaults().tests, &[name.into()])
                .err()
                .unwrap()
                .to_string();
            assert!(
                error.starts_with(&format!("--test: no test '{name}'")),
                "{error}"
            );
        }
    }

    #[test]
    fn threads_rename_every_test_of_a_table_only() {
        let tests = on_threads(Profile::Standard, Profile::Standard.defaults().tests, 4).unwrap();
        assert_eq!(
            names(&tests)[..4],
            [
                "SEQ1M_Q8T4_read",
                "SEQ1M_Q1T4_read",
                "RND4K_Q32T4_read",
                "RND4K_Q1T4_read"
            ]
        );
        let error = on_threads(Profile::Standard, Profile::Standard.defaults().tests, 64)
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            "--threads: RND4K_Q32T64_read would keep more than 1024 I/Os in flight (queue depth \
             times threads)"
        );
        assert!(matches!(
            on_threads(Profile::SdCard, Vec::new(), 2),
            Err(SelectError::ThreadsFixed("sdcard"))
        ));
        // Through the plan: a named test fills the file like the table's own.
        let mut options = crate::suite::Options::of(Profile::Nvme);
        options.tests = vec!["RND4K_Q8T8_write".into()];
        options.threads = Some(2);
        let plan = Plan::new(options, None).unwrap();
        assert_eq!(names(&plan.tests), ["RND4K_Q8T2_write"]);
        assert!(plan.fill);
    }
}

//! The profiles, each whole in a file of its own: what it runs and with which defaults, the
//! score it derives and the verdicts it draws, and what its result says to people.
//!
//! This file is the list: [`Profile`] names each profile and is the only place that dispatches
//! on which one runs (its name, defaults, score and verdicts), or on which one a document's
//! score is of ([`says_of`]). A new profile is a new file, a variant here, its score's type in
//! `iomark_result::result::score` where it has a score of its own, and a line in
//! `docs/ARCHITECTURE.md`. `spec.rs` is a test of a
//! profile ([`TestSpec`], its [`Op`], [`Pattern`] and [`Data`]) and what a profile runs unless
//! told ([`Defaults`]); `standard.rs` (CrystalDiskMark's tables: standard, quick and nvme, and
//! the device's own rate beside `iomark langs`), `latency.rs`, `sweep.rs`, `sustained.rs`,
//! `sdcard.rs`, `pi.rs` and `surface.rs` are the profiles. `says.rs` is what a profile's score
//! says ([`Says`]: a [`Headline`], a report's lines, its pacing) and the [`Marks`] text is
//! written in; `headline.rs` is a run's headline (a profile's, a verify's, a card's health, the
//! languages' spread), `describe.rs` the device and method lines and the time as a report says
//! them, `details.rs` the lines a report prints below its table, `reasons.rs` why a result
//! does not rank (a `Reason`: the document's flag or a site's hold).
//!
//! It measures, stores and prints nothing: the core runs a profile's tests
//! (`iomark_core::suite`), the store keeps a headline, the exports and the site say the rest.
//! The map is docs/ARCHITECTURE.md.

pub mod describe;
pub mod details;
pub mod headline;
pub mod latency;
pub mod pi;
pub mod reasons;
pub mod says;
pub mod sdcard;
pub mod spec;
pub mod standard;
pub mod surface;
pub mod sustained;
pub mod sweep;

pub use headline::headline;
pub use says::{Headline, Marks, Plain, Says};
pub use spec::{Data, Defaults, FileSize, Op, Pattern, TestSpec};

use iomark_result::result::{Score, Target, TestResult, Transport, Warning};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Standard,
    Quick,
    /// CrystalDiskMark's NVMe SSD preset: the default on an NVMe drive.
    Nvme,
    Latency,
    Sweep,
    Sustained,
    SdCard,
    Pi,
    /// Read rate and access time across a device or a test file (GNOME Disks' benchmark).
    Surface,
    /// The device's own sequential rate, measured beside `iomark langs`; not a `--profile`.
    Langs,
}

impl Profile {
    /// What `--profile` offers, in the order `--help` lists them.
    pub const CHOICES: [Profile; 9] = [
        Profile::Standard,
        Profile::Quick,
        Profile::Nvme,
        Profile::Latency,
        Profile::Sweep,
        Profile::Sustained,
        Profile::SdCard,
        Profile::Pi,
        Profile::Surface,
    ];

    /// The name `--profile` takes and `settings.profile` records.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Standard => "standard",
            Profile::Quick => "quick",
            Profile::Nvme => "nvme",
            Profile::Latency => "latency",
            Profile::Sweep => "sweep",
            Profile::Sustained => "sustained",
            Profile::SdCard => "sdcard",
            Profile::Pi => "pi",
            Profile::Surface => "surface",
            Profile::Langs => "langs",
        }
    }

    /// The `--profile` choice of that name.
    pub fn from_name(name: &str) -> Option<Profile> {
        Self::CHOICES.into_iter().find(|p| p.name() == name)
    }

    pub fn defaults(self) -> Defaults {
        match self {
            Profile::Standard => standard::standard(),
            Profile::Quick => standard::quick(),
            Profile::Nvme => standard::nvme(),
            Profile::Latency => latency::latency(),
            Profile::Sweep => sweep::sweep(),
            Profile::Sustained => sustained::sustained(),
            Profile::SdCard => sdcard::sdcard(),
            Profile::Pi => pi::pi(),
            Profile::Surface => surface::surface(),
            Profile::Langs => standard::langs(),
        }
    }

    /// A CrystalDiskMark table: it runs any test such a name states (`--test RND4K_Q8T4_read`)
    /// and `--threads`; other profiles' tests are their method.
    pub fn is_table(self) -> bool {
        matches!(self, Profile::Standard | Profile::Quick | Profile::Nvme)
    }

    /// The profile a run takes when none is asked for: nvme on an NVMe drive (its transport,
    /// as the probe found it), else standard.
    pub fn default_for(transport: Option<Transport>) -> Profile {
        match transport {
            Some(Transport::Nvme) => Profile::Nvme,
            _ => Profile::Standard,
        }
    }

    /// Whether `--claimed` means anything here.
    pub fn judges_sd_classes(self) -> bool {
        self == Profile::SdCard
    }

    /// The figures this profile derives from its tests, if it has any, on `target` (with the
    /// classes claimed for a card, `claimed`).
    pub fn score(self, tests: &[TestResult], claimed: &[String], target: &Target) -> Option<Score> {
        match self {
            Profile::Sweep => Some(Score::Sweep(sweep::score(tests))),
            Profile::Sustained => Some(Score::Sustained(sustained::score(tests))),
            Profile::SdCard => Some(Score::SdCard(sdcard::score(
                tests,
                &sdcard::seat(target),
                &sdcard::claimed(claimed, target),
            ))),
            Profile::Pi => Some(Score::Pi(pi::score(tests))),
            // The surface scan's score comes from its own reads (`runner.rs`), not from tests.
            Profile::Standard
            | Profile::Quick
            | Profile::Nvme
            | Profile::Latency
            | Profile::Surface
            | Profile::Langs => None,
        }
    }

    /// What this profile concludes beyond the figures: a class the card claims and fails, a
    /// score that is not comparable (measured over `file_size` bytes).
    pub fn verdicts(self, file_size: u64, score: Option<&Score>) -> Vec<Warning> {
        match (self, score) {
            (Profile::SdCard, Some(Score::SdCard(score))) => sdcard::verdicts(score),
            (Profile::Pi, _) => pi::verdicts(file_size),
            _ => Vec::new(),
        }
    }
}

/// What a document's score says, by the profile it is of; `None` for a score this version
/// does not know.
pub fn says_of(score: &Score) -> Option<&dyn Says> {
    match score {
        Score::Pi(score) => Some(score),
        Score::SdCard(score) => Some(score),
        Score::Sweep(score) => Some(score),
        Score::Sustained(score) => Some(score),
        Score::Surface(score) => Some(score),
        Score::Other(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TestSpec;

    #[test]
    fn an_nvme_drive_gets_the_nvme_table_unless_told() {
        assert_eq!(Profile::default_for(Some(Transport::Nvme)), Profile::Nvme);
        let others = [
            Transport::Sata,
            Transport::Usb,
            Transport::Mmc,
            Transport::Virtio,
        ];
        for other in others.into_iter().map(Some).chain([None]) {
            assert_eq!(Profile::default_for(other), Profile::Standard);
        }
        let rows: Vec<String> = Profile::Nvme
            .defaults()
            .tests
            .iter()
            .map(TestSpec::name)
            .collect();
        assert_eq!(
            rows[..4],
            [
                "SEQ1M_Q8T1_read",
                "SEQ128K_Q32T1_read",
                "RND4K_Q32T16_read",
                "RND4K_Q1T1_read"
            ]
        );
        assert!(Profile::CHOICES
            .iter()
            .all(|p| Profile::from_name(p.name()) == Some(*p)));
    }
}

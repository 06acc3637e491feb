//! What a result is of, for a site that ranks many: the device model it measured (one key per
//! model and capacity, however the document spelt it), the kind of device, the class of results
//! it can be ranked with, and whether its figures are beyond what its link can carry.
//!
//! Everything here is a pure function of the document, so that the site, the store's
//! aggregates and the tests all derive the same facts from the same document.

use super::drive;
pub use super::names::{is_invisible, normalise, seen, skeleton, slug};
use super::names::{look_alike_word, unconfuse};
use super::reason::Reason;
use super::ResultDoc;

/// The kinds of device a leaderboard filters by.
pub const KINDS: [&str; 11] = [
    "microSD",
    "SD",
    "eMMC",
    "USB flash",
    "USB SSD",
    "USB HDD",
    "NVMe",
    "SATA SSD",
    "SATA HDD",
    "virtual",
    "other",
];

/// The facts a site keeps beside each document.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    /// One key per model and capacity: lower-case words joined by dashes, then the capacity
    /// (`sandisk-extreme-sn64g-64gb`). None when the document names no device model.
    pub device_key: Option<String>,
    /// The model as people write it (`SanDisk Extreme SN64G`), with its capacity.
    pub device_name: String,
    pub kind: &'static str,
    pub transport: Option<super::Transport>,
    /// Results are ranked only with results of the same class: the same profile, I/O mode
    /// and data (`standard/direct/random`).
    pub class: String,
    /// Marketing capacity in GB (10^9 bytes), rounded as labels round it.
    pub capacity_gb: Option<u64>,
    /// Why these figures cannot be ranked, if they cannot.
    pub flag: Option<Reason>,
    /// Marked by the synthetic generator: never shown on a real site.
    pub synthetic: bool,
    /// What its owner says the device is sold as (`sold_as`), normalised; none where that
    /// imitates another name with letters of another script.
    pub sold_as: Option<String>,
}

impl ResultDoc {
    /// The system it ran on, as people compare them: the distribution and the kernel's
    /// version to its minor number (`Debian GNU/Linux 12 (bookworm) · Linux 6.1`), so that
    /// one card on Raspbian and on Oracle Linux with its UEK kernel is two lines of its page.
    /// None where the document names neither.
    pub fn system(&self) -> Option<String> {
        let os = self
            .host
            .os
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty());
        let kernel = self.host.kernel.as_deref().and_then(|k| {
            let mut numbers = k.trim().split(|c: char| !c.is_ascii_digit());
            let (major, minor) = (numbers.next()?, numbers.next()?);
            (!major.is_empty() && !minor.is_empty()).then(|| format!("Linux {major}.{minor}"))
        });
        let both: Vec<String> = os.map(str::to_string).into_iter().chain(kernel).collect();
        (!both.is_empty()).then(|| both.join(" · ").chars().take(100).collect())
    }

    pub fn identity(&self) -> Identity {
        let device = self.target.device.as_ref();
        let named = device.map(drive::named);
        let model = named.as_ref().and_then(|n| n.model.clone());
        let capacity_gb = named.as_ref().and_then(|n| n.capacity_gb);
        // A look-alike letter of another script inside a word ("EVО" with a Cyrillic О) is
        // keyed as the letter it imitates, so it cannot open a second device of the same name,
        // and the result is kept out of rankings (`rank_flag`).
        let device_key = model
            .as_ref()
            .map(|model| slug(&unconfuse(model)))
            .filter(|key| !key.is_empty())
            .map(|mut key| {
                if let Some(gb) = capacity_gb {
                    key.push_str(&format!("-{gb}gb"));
                }
                key
            });
        let bridge = device
            .and_then(|d| d.usb.as_ref())
            .and_then(|u| u.bridge.as_deref());
        let device_name = match (&model, capacity_gb, bridge) {
            (Some(model), Some(gb), _) => format!("{model} {}", drive::capacity_text(gb)),
            (Some(model), None, _) => model.clone(),
            // The bridge's name is never the device's: say what stands in front of it.
            (None, _, Some(bridge)) => format!("a drive behind {bridge}"),
            (None, _, None) => self.unnamed_label(),
        };
        let s = &self.settings;
        Identity {
            device_key,
            device_name,
            kind: device.map_or("other", drive::kind),
            transport: device.and_then(|d| d.transport),
            // A polled run's Q1T1 figures leave out the CPU's wake-up: ranked apart.
            class: format!(
                "{}/{}/{}{}",
                s.profile,
                if s.direct { "direct" } else { "buffered" },
                s.data,
                if s.polled { "/polled" } else { "" }
            ),
            capacity_gb,
            flag: self.rank_flag(),
            synthetic: self.is_synthetic(),
            sold_as: self
                .sold_as
                .as_deref()
                .map(normalise)
                .filter(|n| !slug(n).is_empty() && look_alike_word(n).is_none()),
        }
    }

    /// What was measured, in a few words: the device as a buyer names it, with its capacity
    /// (`Samsung SSD 860 EVO 500 GB`, never its USB bridge), else what stands in front of it,
    /// else its kernel name, else the filesystem and path.
    pub fn device_label(&self) -> String {
        self.identity().device_name
    }

    /// [`ResultDoc::device_label`] where the document names no model: the kernel's name, else
    /// the filesystem and path.
    pub(crate) fn unnamed_label(&self) -> String {
        let device = self.target.device.as_ref();
        device
            .and_then(|d| d.model.clone().or_else(|| d.name.clone()))
            .or_else(|| {
                self.target
                    .filesystem
                    .as_ref()
                    .map(|fs| format!("{fs} at {}", self.target.path))
            })
            .unwrap_or_else(|| self.target.path.clone())
    }

    /// Whether the device names itself only by a code no buyer sees (an SD card's or eMMC's
    /// register name, `SN64G`): what it is sold as is then worth asking its owner.
    pub fn named_by_code(&self) -> bool {
        self.target.device.as_ref().is_some_and(|d| d.sd.is_some())
    }

    /// Whether the synthetic generator made this document (`"synthetic": true`).
    pub fn is_synthetic(&self) -> bool {
        self.extra.get("synthetic").and_then(|v| v.as_bool()) == Some(true)
    }

    /// Why these figures cannot stand in a ranking: no I/O was done, a pi score from other
    /// file sizes, a figure is faster than the device's link can carry (a cache answered, or
    /// the document is wrong), or the device's name imitates another's with letters of another
    /// script.
    pub fn rank_flag(&self) -> Option<Reason> {
        if self.settings.engine.split('+').any(|e| e == "null") {
            return Some(Reason::NullEngine);
        }
        if self.warned(super::warning::WarningKind::PiScoreNotComparable) {
            return Some(Reason::PiSizes);
        }
        if let Some(flag) = self.beyond_physics() {
            return Some(flag);
        }
        let device = self.target.device.as_ref()?;
        let names = [&device.vendor, &device.model]
            .into_iter()
            .chain(device.usb.as_ref().map(|u| &u.product))
            .chain(device.sd.as_ref().map(|s| &s.product))
            .flatten();
        names.map(|n| normalise(n)).find_map(|n| {
            let word = look_alike_word(&n)?.to_string();
            Some(Reason::MixedScripts { name: n, word })
        })
    }
}

#[cfg(test)]
mod tests;

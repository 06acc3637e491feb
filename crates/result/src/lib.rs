//! The result document and the small facts every other crate shares.
//!
//! `result` is the document (`iomark.result/1`): its schema, typed scores and warnings, its
//! validation, the figures a site ranks by and what a result is of. Beside it: `compare`
//! (verdicts between runs), `events` (the progress lines a run writes and the app reads),
//! `reference` (published figures), `stats` and `units`. This crate measures nothing, stores
//! nothing, prints nothing and asks nothing of the system (its folders and random seeds are
//! `iomark_os`'s); everything else in iomark depends on it. The map is docs/ARCHITECTURE.md.
//!
//! In `result/`: the result document (`mod.rs`), its typed `Score` (`score.rs`), `Warning` and
//! every `WarningKind` (`warning.rs`), the langs section (`langs.rs`), the verify section and its
//! `Settings::verify` (`verify.rs`), checks of documents from elsewhere (`validate.rs`, its
//! refusals and bounds in `document_error.rs`, RFC 3339 times in `time.rs`), table rows, ids (and
//! `SHORT_ID`), history summaries; a timeline regrouped into whole seconds (`timeline.rs`:
//! `per_second`) for what is defined per second; the figures a site ranks by, written once
//! (`metric.rs`: `METRICS`, each its column, its source in a document, its label and unit, whether
//! pi pages show it; a leaderboard's default sort and a page's columns are the ones its class's
//! results have); what a result is of (`identity.rs`: device key and name, the class of comparable
//! results, whether a figure beats the narrowest link the document names, look-alike names; the
//! drive as a buyer names it, never its USB bridge, its capacity said once, and its kind by the
//! drive's own answers before the kernel's `rotational` default, in `drive.rs`; the text of names
//! in any script is `names.rs`, a word dressed up in signs or rarer letters `names/disguised.rs`)
//! and what of it may be published (`public.rs`, the folders, addresses and serials that name a
//! person hidden, `public/someone.rs` what names someone; `public/options.rs`, mount options
//! and a kernel's release); why it does not
//! rank, as facts (`reason.rs`: `Reason`, whose words are `iomark_profiles::reasons`); what a test's name states (`shape.rs`); `Extra` keeps fields a newer version
//! added, and `unknown.rs` drops them where a site keeps a document (the site's own rules are its
//! intake's, `iomark_site::intake`). It knows nothing of how figures are made, and says nothing of
//! them: a run's headline and lines are its profile's words (`iomark_profiles`).

pub mod compare;
pub mod events;
pub mod reference;
pub mod result;
pub mod stats;
pub mod units;

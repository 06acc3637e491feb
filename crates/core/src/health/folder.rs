//! The `iomark-health` folder a check keeps on the filesystem it watches: canaries (files of
//! known content written at the first check, read back at every one), the file of the fresh
//! write, the file the synced writes are timed in, and `state.json` (the canaries' seed, the
//! baseline, the device's last write count). Made by iomark alone: a folder of that name
//! without a state of ours is refused, never written into; each file is opened without
//! following links and must be a regular file.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The folder's name in the watched folder.
pub const NAME: &str = "iomark-health";
const STATE: &str = "state.json";
/// Canaries: this many files of this many bytes, written once.
pub const CANARIES: usize = 4;
pub const CANARY_BYTES: usize = 256 << 10;

#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error(
        "{0} is not iomark's (it holds no state.json of a health check): nothing was written \
         there; move it away or check another folder"
    )]
    NotOurs(PathBuf),
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
}

/// What a folder remembers between checks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The canaries' pattern seed.
    pub seed: u64,
    /// Whether every canary was written whole and synced (a first check stopped before they
    /// were is begun again, never judged).
    #[serde(default)]
    pub canaries_whole: bool,
    /// Checks made so far (this one not counted until it is saved).
    pub checks: u64,
    /// The first checks' 99th percentiles, each the median of up to three checks.
    pub first_read_p99_us: Vec<f64>,
    pub first_synced_write_p99_ms: Vec<f64>,
    /// The device's count of sectors written, and when, at the end of the last check.
    pub device_sectors_written: Option<u64>,
    pub at_unix_s: Option<u64>,
    /// The machine's boot (a count read before it is from another boot).
    pub boot_id: Option<String>,
    /// The last check's verdict (a warning is sent when it changes back to healthy too).
    #[serde(default)]
    pub last_verdict: Option<iomark_result::result::health::Verdict>,
}

/// The folder of one watched filesystem.
pub struct Folder {
    pub path: PathBuf,
    pub state: State,
    /// Whether it was made by this check (its canaries are new).
    pub new: bool,
}

impl Folder {
    /// The folder in `dir`, made with new canaries where there is none.
    pub fn open(dir: &Path) -> Result<Folder, FolderError> {
        let path = dir.join(NAME);
        let io = |e| FolderError::Io(path.clone(), e);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.is_dir() => return Err(FolderError::NotOurs(path)),
            Ok(_) => {
                let state = read_state(&path)?.ok_or_else(|| FolderError::NotOurs(path.clone()))?;
                let new = !state.canaries_whole;
                return Ok(Folder { path, state, new });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
        }
        std::fs::create_dir(&path).map_err(io)?;
        let state = State {
            seed: iomark_os::rng::Rng::from_entropy().next_u64(),
            ..State::default()
        };
        let folder = Folder {
            path,
            state,
            new: true,
        };
        folder.save()?;
        Ok(folder)
    }

    /// A file of the folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Canary `i`'s path.
    pub fn canary(&self, i: usize) -> PathBuf {
        self.file(&format!("canary-{i}"))
    }

    /// Writes the state through a new file, synced and renamed, the folder synced after.
    pub fn save(&self) -> Result<(), FolderError> {
        let target = self.file(STATE);
        let temp = self.file(".state.json.new");
        let io = |e| FolderError::Io(target.clone(), e);
        let text = serde_json::to_vec_pretty(&self.state).map_err(|e| io(io::Error::other(e)))?;
        let _ = std::fs::remove_file(&temp);
        let mut file = create(&temp).map_err(io)?;
        file.write_all(&text).map_err(io)?;
        file.sync_all().map_err(io)?;
        if std::fs::symlink_metadata(&target).is_ok_and(|m| !m.is_file()) {
            return Err(FolderError::NotOurs(target));
        }
        std::fs::rename(&temp, &target).map_err(io)?;
        sync_dir(&self.path);
        Ok(())
    }
}

/// Whether a check of `dir` writes the canaries: where there is no folder yet, or its state
/// does not say they were written whole.
pub fn needs_canaries(dir: &Path) -> bool {
    !matches!(read_state(&dir.join(NAME)), Ok(Some(state)) if state.canaries_whole)
}

fn read_state(path: &Path) -> Result<Option<State>, FolderError> {
    let file = path.join(STATE);
    match std::fs::symlink_metadata(&file) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(FolderError::Io(file, e)),
    }
    let text = std::fs::read(&file).map_err(|e| FolderError::Io(file.clone(), e))?;
    Ok(serde_json::from_slice(&text).ok())
}

/// A new file, never following a link, for writing (and reading).
pub fn create(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Opens a file of ours past the page cache (verify's way): the file, and whether it is
/// direct; refused where it is not a regular file.
pub fn open_uncached(path: &Path, write: bool) -> io::Result<(File, bool)> {
    let (file, direct) = crate::verify::files::open_uncached(path, write)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok((file, direct))
}

/// The folder's own entry synced, so that a rename outlives a power cut.
pub fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

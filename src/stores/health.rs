//! Whether a store on disk can be read, and the one error that says it
//! cannot. Each store checks what its format lets it check: cheaply on every
//! open ([`Depth::Open`]: tantivy's footers, redb's header and tables, the
//! state file's schema), and every byte ([`Depth::Full`]: tantivy's
//! checksums, redb's integrity check) before an index run for a store whose
//! files changed since git-rag last wrote or checked them ([`Stamps`]), and
//! in `git rag status --verify`; the run then rebuilds what is damaged
//! (`index::heal`).
//!
//! Invariant: a damaged store is an error value, never a panic. Where a
//! dependency panics on damaged input (redb opening a corrupted file, tantivy
//! decoding a damaged block), the store's boundary catches it with [`guard`](crate::stores::panic_guard::guard).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::stores::panic_guard::guard;

/// The stores of a local index, by what they hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Store {
    /// `.rag_index_state.json`: which commit the index holds.
    State,
    /// `files.redb`: what the index holds for each file.
    Files,
    /// `keyword/`: the tantivy indexes of chunks and symbols.
    Keyword,
    /// `graph/graph.redb`: the code graph.
    Graph,
    /// `qdrant/`: the embedded vector store.
    Vectors,
    /// `history/`: the commits of the indexed commit's history.
    History,
}

impl Store {
    /// How the store is named in messages.
    pub fn what(self) -> &'static str {
        match self {
            Store::State => "the index state file",
            Store::Files => "the store of per-file records (files.redb)",
            Store::Keyword => "the keyword index",
            Store::Graph => "the code graph",
            Store::Vectors => "the vector store",
            Store::History => "the history store",
        }
    }

    /// What `git rag index` does about it.
    pub fn remedy(self) -> &'static str {
        match self {
            // Without them nothing says what the other stores hold.
            Store::State | Store::Files => "run `git rag index` to rebuild the index",
            Store::Keyword | Store::Graph | Store::Vectors | Store::History => "run `git rag index` to rebuild it",
        }
    }
}

/// How much of a store to read to check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// What opening the store reads anyway (each query's open).
    Open,
    /// Every byte against its checksum (an index run where the store's
    /// files changed, `git rag status --verify`).
    Full,
}

/// The file of [`Stamps`] in an index directory.
pub const STAMPS_FILE: &str = "stamps.json";

/// Each store's files as git-rag last left them (written, or checked in
/// full): every file's length and modification time. A store whose files all
/// still match was not touched since by anything else (a cache copied over
/// it, a full disk cutting it, another program writing it) and is checked as
/// an open checks it; any difference, a file gone or new, means a full check.
/// Why not check in full every run: on a large index that is 5× the time of a
/// one-file commit. Damage that changes neither length nor time (bit rot
/// under the file system) is `git rag status --verify`'s to find.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamps {
    stores: BTreeMap<Store, BTreeMap<String, FileStamp>>,
}

/// A file's length and modification time (nanoseconds since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct FileStamp(u64, u64);

impl Stamps {
    /// The stamps recorded in `index_dir`; none (every store checked in
    /// full) when the file is missing or unreadable.
    pub fn load(index_dir: &Path) -> Stamps {
        std::fs::read(index_dir.join(STAMPS_FILE)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// The stamps of the files at `paths` (files, or folders walked) now,
    /// named relative to `index_dir`.
    pub fn take(index_dir: &Path, stores: &[(Store, Vec<PathBuf>)]) -> Stamps {
        let mut stamps = Stamps::default();
        for (store, paths) in stores {
            let files = stamps.stores.entry(*store).or_default();
            for path in paths {
                stamp_files(index_dir, path, files);
            }
        }
        stamps
    }

    /// Whether `store` has the same files now as when these were taken
    /// (`now` from [`Stamps::take`]); never for a store not recorded.
    pub fn unchanged(&self, now: &Stamps, store: Store) -> bool {
        self.stores.get(&store).is_some_and(|then| now.stores.get(&store) == Some(then))
    }

    /// Writes the stamps into `index_dir` (through a rename: a torn file
    /// would only mean full checks, but the rename costs nothing).
    pub fn save(&self, index_dir: &Path) -> std::io::Result<()> {
        let tmp = index_dir.join(format!("{STAMPS_FILE}.tmp"));
        std::fs::write(&tmp, serde_json::to_vec(self).map_err(std::io::Error::other)?)?;
        std::fs::rename(&tmp, index_dir.join(STAMPS_FILE))
    }
}

fn stamp_files(index_dir: &Path, path: &Path, into: &mut BTreeMap<String, FileStamp>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            stamp_files(index_dir, &entry.path(), into);
        }
        return;
    }
    let nanos = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64);
    let name = path.strip_prefix(index_dir).unwrap_or(path).to_string_lossy().into_owned();
    into.insert(name, FileStamp(meta.len(), nanos));
}

/// A store that cannot be read as it is on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct StoreDamaged {
    pub store: Store,
    pub path: PathBuf,
    /// What the check found, on one line.
    pub cause: String,
}

/// The most of a dependency's message an error line carries.
const CAUSE_CHARS: usize = 160;

impl StoreDamaged {
    pub fn new(store: Store, path: &Path, cause: impl fmt::Display) -> StoreDamaged {
        StoreDamaged { store, path: path.to_path_buf(), cause: one_line(&cause.to_string(), CAUSE_CHARS) }
    }
}

impl fmt::Display for StoreDamaged {
    /// One line: what is damaged and what fixes it first, then the details.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is damaged; {} ({}: {})", self.store.what(), self.store.remedy(), self.path.display(), self.cause)
    }
}

/// `text`'s first line, at most `max` characters (an ellipsis says it was cut).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first.chars().count() <= max {
        return first.to_string();
    }
    let mut cut: String = first.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Checks a redb file: at [`Depth::Open`] that it opens (a fresh handle,
/// dropped after), at [`Depth::Full`] every page's checksum too
/// (`Database::check_integrity`). A file redb had to repair counts as damaged:
/// a repair may roll back to an older commit than the index recorded.
/// `None` when there is no file; skipped (`Ok`) while this process holds
/// the file open (`redb_handle`): redb allows one handle per process.
pub fn check_redb(store: Store, path: &Path, depth: Depth) -> Option<StoreDamaged> {
    if !path.is_file() || crate::stores::redb_handle::is_open(path) {
        return None;
    }
    let damaged = |cause: String| StoreDamaged::new(store, path, cause);
    let checked = guard(
        || {
            let mut db = redb::Database::builder().set_concurrency_mode(redb::ConcurrencyMode::MultiWriter).open(path).map_err(|e| e.to_string())?;
            match depth {
                Depth::Open => Ok(()),
                Depth::Full => match db.check_integrity() {
                    Ok(true) => Ok(()),
                    Ok(false) => Err("pages failed their checksums (redb repaired the file to an older commit)".to_string()),
                    // Another process is writing it: that writer checks it.
                    Err(redb::DatabaseError::TransactionInProgress) => Ok(()),
                    Err(e) => Err(e.to_string()),
                },
            }
        },
        |panic| panic,
    );
    checked.err().map(damaged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_tell_a_store_left_alone_from_one_written_cut_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let keyword = dir.path().join("keyword");
        std::fs::create_dir_all(keyword.join("chunks")).unwrap();
        std::fs::write(keyword.join("chunks/a.idx"), b"segment").unwrap();
        std::fs::write(dir.path().join("files.redb"), b"records").unwrap();
        let stores = || vec![(Store::Keyword, vec![keyword.clone()]), (Store::Files, vec![dir.path().join("files.redb")])];
        Stamps::take(dir.path(), &stores()).save(dir.path()).unwrap();
        let then = Stamps::load(dir.path());
        assert!(then.unchanged(&Stamps::take(dir.path(), &stores()), Store::Keyword));
        assert!(!then.unchanged(&Stamps::take(dir.path(), &stores()), Store::Graph), "a store never recorded is checked in full");

        std::fs::write(keyword.join("chunks/b.idx"), b"new").unwrap();
        assert!(!then.unchanged(&Stamps::take(dir.path(), &stores()), Store::Keyword), "a new file");
        std::fs::remove_file(keyword.join("chunks/b.idx")).unwrap();
        std::fs::write(keyword.join("chunks/a.idx"), b"segm").unwrap();
        let now = Stamps::take(dir.path(), &stores());
        assert!(!then.unchanged(&now, Store::Keyword), "a cut file");
        assert!(then.unchanged(&now, Store::Files), "the other store is left alone");
        std::fs::remove_file(dir.path().join("files.redb")).unwrap();
        assert!(!then.unchanged(&Stamps::take(dir.path(), &stores()), Store::Files), "a removed file");
        std::fs::write(dir.path().join(STAMPS_FILE), b"{torn").unwrap();
        assert_eq!(Stamps::load(dir.path()), Stamps::default(), "unreadable stamps: everything in full");
    }

    #[test]
    fn an_error_line_names_the_store_and_its_remedy_before_any_detail() {
        let long = "x".repeat(5_000);
        let e = StoreDamaged::new(Store::Keyword, Path::new("/r/.git/rag/keyword"), format!("{long}\nsecond line"));
        let line = e.to_string();
        assert!(line.starts_with("the keyword index is damaged; run `git rag index` to rebuild it ("), "{line}");
        assert!(!line.contains('\n'));
        assert!(line.chars().count() < 260, "{}", line.chars().count());
        assert!(line.ends_with("…)"));
    }

    #[test]
    fn a_redb_file_of_zeros_or_cut_short_is_damaged_and_a_sound_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.redb");
        {
            let db = redb::Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            {
                let mut t = txn.open_table(redb::TableDefinition::<&str, &[u8]>::new("t")).unwrap();
                for i in 0..2_000u32 {
                    t.insert(i.to_string().as_str(), [7u8; 64].as_slice()).unwrap();
                }
            }
            txn.commit().unwrap();
        }
        assert_eq!(check_redb(Store::Graph, &path, Depth::Full), None);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, vec![0u8; bytes.len()]).unwrap();
        assert_eq!(check_redb(Store::Graph, &path, Depth::Open).map(|d| d.store), Some(Store::Graph));
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(check_redb(Store::Graph, &path, Depth::Full).is_some());
    }
}

//! `.rag_index_state.json`: what the index holds, written atomically after
//! every store has committed; the indexer lock; the record of the last run.
//!
//! The JSON Schema of the state file is `state/rag_index_state.schema.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::stores::fs::{at as io, FileLock, LockError, LockKind, PathError};

/// Bump when the state file or the stores change shape; older indexes are rebuilt.
/// 2: the per-file records moved from the state file to `files.redb`.
/// 3: `files.redb` holds each record's head too, what queries read (a
/// git-rag of schema 2 would update the records and not the heads: it
/// refuses this state as too new instead).
pub const SCHEMA_VERSION: u32 = 3;
pub const STATE_FILE: &str = ".rag_index_state.json";
pub const LOCK_FILE: &str = "index.lock";
pub const LAST_RUN_FILE: &str = "last_run.json";
pub const PENDING_FILE: &str = ".rag_index_pending.json";

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The state file, or the per-file records beside it (`files.redb`), do
    /// not read back: `git rag index` rebuilds the index.
    #[error("{damage}")]
    Corrupt {
        path: PathBuf,
        message: String,
        /// The same as the store's error (a frontend finds it in the chain).
        #[source]
        damage: crate::stores::health::StoreDamaged,
    },
    #[error("the index state file {path} has schema version {found}, newer than this git-rag understands ({supported}); upgrade git-rag, or rebuild the index with `git rag index --full`")]
    TooNew { path: PathBuf, found: u64, supported: u32 },
    #[error(transparent)]
    Io(#[from] PathError),
    #[error("another `git rag index` is running on {path} (waited {waited:?}); try again when it has finished")]
    Locked { path: PathBuf, waited: Duration },
}

pub type Result<T> = std::result::Result<T, StateError>;

impl StateError {
    /// The state file or the per-file records at `path` do not read back.
    pub fn corrupt(path: &Path, message: impl std::fmt::Display) -> StateError {
        let message = message.to_string();
        StateError::Corrupt { path: path.to_path_buf(), damage: crate::stores::health::StoreDamaged::new(damaged_store(path), path, &message), message }
    }
}

/// Which store a damaged file of the state is.
fn damaged_store(path: &Path) -> crate::stores::health::Store {
    if path.ends_with(crate::stores::files_store::FILES_STORE) {
        crate::stores::health::Store::Files
    } else {
        crate::stores::health::Store::State
    }
}

/// What the index holds for one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Blob id of the indexed content.
    pub blob: String,
    pub language: String,
    pub chunks: Vec<ChunkId>,
    pub symbols: usize,
    /// When the file has syntax errors: its lines, and how many lie inside
    /// them (the rest was analysed as code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syntax_errors: Option<ErrorLines>,
}

/// A file's lines and those inside syntax errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorLines {
    pub lines: usize,
    pub error_lines: usize,
}

/// How many files [`SyntaxErrors`] names.
pub const SYNTAX_ERRORS_LISTED: usize = 20;

/// Files with syntax errors (macro-heavy C reads so to its grammar): how
/// many, how much of them was still analysed as code, and the ones with the
/// most lines inside errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SyntaxErrors {
    pub files: usize,
    pub lines: usize,
    pub error_lines: usize,
    /// Of those files' lines, the share outside syntax errors.
    pub analysed_share: f64,
    /// At most [`SYNTAX_ERRORS_LISTED`], most error lines first.
    pub worst: Vec<SyntaxErrorFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SyntaxErrorFile {
    pub path: String,
    pub lines: usize,
    pub error_lines: usize,
}

impl SyntaxErrors {
    /// The summary of `files`' errors; `None` when none has any.
    pub fn of<'a>(files: impl IntoIterator<Item = (&'a String, &'a FileState)>) -> Option<SyntaxErrors> {
        let mut all: Vec<SyntaxErrorFile> = files
            .into_iter()
            .filter_map(|(path, f)| f.syntax_errors.map(|e| SyntaxErrorFile { path: path.clone(), lines: e.lines, error_lines: e.error_lines }))
            .collect();
        if all.is_empty() {
            return None;
        }
        let lines: usize = all.iter().map(|f| f.lines).sum();
        let error_lines: usize = all.iter().map(|f| f.error_lines).sum();
        all.sort_by(|a, b| b.error_lines.cmp(&a.error_lines).then_with(|| a.path.cmp(&b.path)));
        let files = all.len();
        all.truncate(SYNTAX_ERRORS_LISTED);
        let analysed_share = if lines == 0 { 1.0 } else { (lines - error_lines.min(lines)) as f64 / lines as f64 };
        Some(SyntaxErrors { files, lines, error_lines, analysed_share, worst: all })
    }
}

/// A chunk id (128-bit hash), written as 32 hex digits. Held as a number so
/// that reading a state file with a few hundred thousand ids allocates
/// nothing per id: the state is read and written on every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkId(pub u128);

impl ChunkId {
    pub fn parse(hex: &str) -> Option<ChunkId> {
        if hex.len() != 32 {
            return None;
        }
        u128::from_str_radix(hex, 16).ok().map(ChunkId)
    }
}

impl std::fmt::Display for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Serialize for ChunkId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut buf = [0u8; 32];
        let hex = b"0123456789abcdef";
        for (i, b) in buf.iter_mut().enumerate() {
            *b = hex[((self.0 >> (124 - 4 * i)) & 0xf) as usize];
        }
        s.serialize_str(std::str::from_utf8(&buf).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for ChunkId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<ChunkId, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ChunkId;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a chunk id of 32 hex digits")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<ChunkId, E> {
                ChunkId::parse(v).ok_or_else(|| E::custom(format!("bad chunk id `{v}`")))
            }
        }
        d.deserialize_str(V)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexState {
    pub schema_version: u32,
    pub tool_version: String,
    /// Hash of the options that change what is indexed; a change forces a rebuild.
    pub config_hash: String,
    #[serde(with = "crate::git::hex_id::option")]
    pub last_commit: Option<gix::ObjectId>,
    /// Every indexed file. Kept in `files.redb` beside the state file
    /// ([`crate::stores::files_store`]), not in it; read from the state file
    /// only when an index of schema 1 is upgraded.
    #[serde(default, skip_serializing)]
    pub files: BTreeMap<String, FileState>,
    /// Which of `files` changed since they were read from `files.redb`.
    #[serde(skip)]
    pub changed_records: ChangedRecords,
    /// How much of each record `files` holds.
    #[serde(skip, default = "whole_records")]
    pub records: crate::stores::files_store::Records,
    /// Unix seconds of the last successful run.
    pub updated_at: u64,
    /// The semantic layer the vector store holds, or `None` when the index
    /// is keyword and symbol only.
    #[serde(default)]
    pub semantic: Option<SemanticState>,
    /// Files of `last_commit` that are not indexed yet because their blob
    /// could not be read (a partial clone offline, a lost object); every
    /// later run tries them again.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pending: BTreeMap<String, PendingFile>,
    /// The user turned the semantic layer off (`--no-semantic`,
    /// `rag.semantic = false`): queries do not suggest installing a model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub semantic_off: bool,
    /// What decided which paths are indexed (`index::paths::fingerprint`);
    /// empty when nothing did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path_rules: String,
    /// The `.gitattributes` files of `last_commit`: path → blob id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
    /// The vector store could not follow (a Qdrant server or an embedding
    /// endpoint out of reach): keyword, symbols and graph are at
    /// `last_commit`, these vectors are not. The next run that reaches the
    /// store brings them in line; queries leave these paths out of dense search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors_behind: Option<VectorsBehind>,
    /// The embedded vector store's points per collection when the run that
    /// wrote them ended: a store holding another number lost some (a cut id
    /// tracker reads back as fewer points), which the next run's check finds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_points: Option<BTreeMap<String, usize>>,
}

/// Vectors the store lacks or holds stale, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct VectorsBehind {
    /// Every file's (a first or full run, or a change of model, failed).
    #[serde(default)]
    pub all: bool,
    /// Otherwise these paths' (changed, added or deleted since the store last followed).
    #[serde(default)]
    pub paths: std::collections::BTreeSet<String>,
    /// What failed, as the run reported it.
    pub reason: String,
}

impl VectorsBehind {
    /// Whether dense hits on `path` may be stale or missing.
    pub fn covers(&self, path: &str) -> bool {
        self.all || self.paths.contains(path)
    }
}

/// A file left out of a run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingFile {
    pub blob: String,
    pub reason: String,
}

/// Which model's vectors are in which store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SemanticState {
    pub model: String,
    pub dims: usize,
    /// `embedded`, or `server <url> <collection prefix>`.
    pub store: String,
    /// [`crate::semantic::docs::RECIPE`] of the vectors (0: before it was recorded).
    #[serde(default)]
    pub recipe: u32,
}

fn whole_records() -> crate::stores::files_store::Records {
    crate::stores::files_store::Records::Whole
}

impl IndexState {
    pub fn new(config_hash: String) -> IndexState {
        IndexState {
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            config_hash,
            last_commit: None,
            files: BTreeMap::new(),
            changed_records: ChangedRecords::default(),
            records: crate::stores::files_store::Records::Whole,
            updated_at: 0,
            semantic: None,
            pending: BTreeMap::new(),
            semantic_off: false,
            path_rules: String::new(),
            attributes: BTreeMap::new(),
            vectors_behind: None,
            vector_points: None,
        }
    }

    pub fn chunk_count(&self) -> usize {
        self.files.values().map(|f| f.chunks.len()).sum()
    }

    pub fn symbol_count(&self) -> usize {
        self.files.values().map(|f| f.symbols).sum()
    }

    /// Reads the state file; `Ok(None)` when there is none yet.
    /// The indexed commit alone, from the state file without its per-file
    /// records: `None` when there is none or the file does not read.
    pub fn indexed_commit(path: &Path) -> Option<gix::ObjectId> {
        #[derive(Deserialize)]
        struct Commit {
            #[serde(with = "crate::git::hex_id::option")]
            last_commit: Option<gix::ObjectId>,
        }
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice::<Commit>(&bytes).ok()?.last_commit
    }

    pub fn load(path: &Path) -> Result<Option<IndexState>> {
        Self::load_records(path, crate::stores::files_store::Records::Whole)
    }

    /// The state as queries read it: each file's blob id and language, not
    /// its chunk ids or counts ([`crate::stores::files_store::Records`]).
    /// Such a state is never saved ([`IndexState::save`] refuses it).
    pub fn load_for_queries(path: &Path) -> Result<Option<IndexState>> {
        Self::load_records(path, crate::stores::files_store::Records::ForQueries)
    }

    fn load_records(path: &Path, records: crate::stores::files_store::Records) -> Result<Option<IndexState>> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("cannot read", path)(e).into()),
        };
        let corrupt = |message: String| StateError::corrupt(path, message);
        #[derive(Deserialize)]
        struct Version {
            schema_version: Option<u64>,
        }
        let too_new = |found: u64| StateError::TooNew { path: path.to_path_buf(), found, supported: SCHEMA_VERSION };
        let state: IndexState = match serde_json::from_slice(&bytes) {
            Ok(state) => state,
            Err(e) => {
                // A newer format may not parse: report it as newer, not corrupt.
                let version = serde_json::from_slice::<Version>(&bytes).ok().and_then(|v| v.schema_version);
                return Err(match version {
                    Some(v) if v > u64::from(SCHEMA_VERSION) => too_new(v),
                    _ => corrupt(e.to_string()),
                });
            }
        };
        if state.schema_version > SCHEMA_VERSION {
            return Err(too_new(u64::from(state.schema_version)));
        }
        let mut state = state;
        if state.schema_version >= 2 {
            let dir = path.parent().unwrap_or(Path::new("."));
            state.files = crate::stores::files_store::load(dir, records)?
                .ok_or_else(|| corrupt(format!("{} is missing beside it", crate::stores::files_store::FILES_STORE)))?;
            state.changed_records = ChangedRecords(Some(BTreeSet::new()));
            state.records = records;
        }
        // An older state (its files read from it) is written back in this
        // shape; its config hash, which has the schema in it, makes the next
        // run a full one.
        state.schema_version = SCHEMA_VERSION;
        Ok(Some(state))
    }

    /// Writes the per-file records (`files.redb`, the ones that changed),
    /// then the state file atomically: temp file, fsync, rename.
    pub fn save(&self, path: &Path) -> Result<()> {
        if self.records != crate::stores::files_store::Records::Whole {
            return Err(StateError::corrupt(path, "a state read for queries (without chunk ids) cannot be saved"));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        match &self.changed_records.0 {
            Some(changed) => crate::stores::files_store::update(dir, &self.files, changed)?,
            None => crate::stores::files_store::save(dir, &self.files)?,
        }
        let json = serde_json::to_vec(self).map_err(|e| StateError::corrupt(path, e.to_string()))?;
        write_atomic(path, &json)
    }
}

/// Which per-file records of a state changed since it was read from
/// `files.redb`, so that a save writes those and does not compare every
/// record (`None`: a state made anew, or read from a schema-1 file; its save
/// compares them all). Bookkeeping, not part of the state's value: two
/// states with the same records are equal whatever this says.
#[derive(Debug, Clone, Default)]
pub struct ChangedRecords(Option<BTreeSet<String>>);

impl ChangedRecords {
    /// Notes that the record of `path` changed (or went).
    pub fn note(&mut self, path: &str) {
        if let Some(changed) = &mut self.0 {
            changed.insert(path.to_string());
        }
    }
}

impl PartialEq for ChangedRecords {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ChangedRecords {}

/// The index state in `index_dir` as JSON with every file's record under
/// `files`, as schema 1 kept it (`git rag dump-state`, to compare two indexes).
pub fn dump_state(index_dir: &Path) -> Result<serde_json::Value> {
    let path = index_dir.join(STATE_FILE);
    let state = IndexState::load(&path)?.ok_or_else(|| StateError::corrupt(&path, "there is no index state; run `git rag index`"))?;
    let encode = |e: serde_json::Error| StateError::corrupt(&path, e.to_string());
    let mut value = serde_json::to_value(&state).map_err(encode)?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("files".into(), serde_json::to_value(&state.files).map_err(encode)?);
    }
    Ok(value)
}

pub fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Replaces `path` atomically ([`crate::stores::fs::write_atomic`]).
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    crate::stores::fs::write_atomic(path, data, None).map_err(|(at, e)| io("cannot write", &at)(e).into())
}

/// The run journal: written before any store is touched, removed after the
/// state file is written. If it is there when a run starts, the previous run
/// died on its way to `target`, and any store may hold that commit's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingRun {
    pub target: String,
    /// The run was a full rebuild: the stores may hold a mix of anything.
    pub full: bool,
}

impl PendingRun {
    /// Reads the journal. One that cannot be read is reported as an
    /// unknown full rebuild, which is always safe.
    pub fn load(dir: &Path) -> Option<PendingRun> {
        let bytes = match std::fs::read(dir.join(PENDING_FILE)) {
            Ok(b) => b,
            Err(_) => return None,
        };
        Some(serde_json::from_slice(&bytes).unwrap_or(PendingRun { target: String::new(), full: true }))
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        let path = dir.join(PENDING_FILE);
        let json = serde_json::to_vec(self).map_err(|e| StateError::corrupt(&path, e.to_string()))?;
        write_atomic(&path, &json)
    }

    pub fn clear(dir: &Path) -> Result<()> {
        let path = dir.join(PENDING_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io("cannot remove", &path)(e).into()),
        }
    }
}

/// The record of the last `git rag index` run, successful or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LastRun {
    pub finished_at: u64,
    pub commit: Option<String>,
    pub mode: String,
    pub files_indexed: usize,
    pub files_deleted: usize,
    pub chunks: usize,
    pub embedded: usize,
    pub reused: usize,
    pub took_ms: f64,
    pub error: Option<String>,
}

impl LastRun {
    pub fn load(dir: &Path) -> Option<LastRun> {
        let bytes = std::fs::read(dir.join(LAST_RUN_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| StateError::corrupt(&dir.join(LAST_RUN_FILE), e.to_string()))?;
        write_atomic(&dir.join(LAST_RUN_FILE), &json)
    }
}

/// An exclusive lock on an index directory, released on drop (or when the
/// process dies: the OS drops the lock with the file descriptor).
pub struct IndexLock {
    _lock: FileLock,
}

impl IndexLock {
    /// Takes the lock, polling for up to `wait`.
    pub fn acquire(dir: &Path, wait: Duration) -> Result<IndexLock> {
        let path = dir.join(LOCK_FILE);
        match FileLock::acquire(&path, LockKind::Exclusive, wait, Duration::from_millis(50), || {}) {
            Ok(lock) => {
                lock.record_pid();
                Ok(IndexLock { _lock: lock })
            }
            Err(LockError::Busy) => Err(StateError::Locked { path: dir.to_path_buf(), waited: wait }),
            Err(LockError::Io(e)) => Err(io("cannot lock", &path)(e).into()),
        }
    }

    /// Whether some process holds the lock right now.
    pub fn is_held(dir: &Path) -> bool {
        FileLock::is_held(&dir.join(LOCK_FILE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        assert!(IndexState::load(&path).unwrap().is_none());
        let mut s = IndexState::new("abc".into());
        s.last_commit = Some(gix::ObjectId::from_hex(b"deadbeefdeadbeefdeadbeefdeadbeefdeadbeef").expect("hex"));
        let id = ChunkId::parse("00ff00ff00ff00ff00ff00ff00ff00f1").unwrap();
        assert_eq!(id.to_string(), "00ff00ff00ff00ff00ff00ff00ff00f1");
        s.files.insert("a.py".into(), FileState { blob: "1".into(), language: "python".into(), chunks: vec![id], symbols: 2, syntax_errors: None });
        s.save(&path).unwrap();
        assert_eq!(IndexState::load(&path).unwrap(), Some(s));

        std::fs::write(&path, b"{not json").unwrap();
        let err = IndexState::load(&path).unwrap_err().to_string();
        assert!(err.starts_with("the index state file is damaged; run `git rag index` to rebuild the index ("), "{err}");

        std::fs::write(&path, br#"{"schema_version": 99, "whatever": true}"#).unwrap();
        let err = IndexState::load(&path).unwrap_err().to_string();
        assert!(err.contains("newer") && err.contains("99"), "{err}");
    }

    /// The per-file records live in `files.redb`: a run rewrites those that
    /// changed; a store that is missing is an error that says what to do;
    /// a damaged one is replaced by the next save.
    #[test]
    fn file_records_beside_the_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        let mut s = IndexState::new("abc".into());
        for i in 0..50u128 {
            s.files.insert(
                format!("f{i}.py"),
                FileState {
                    blob: format!("{i:040x}"),
                    language: "python".into(),
                    chunks: vec![ChunkId(i), ChunkId(i + 1000)],
                    symbols: i as usize,
                    syntax_errors: None,
                },
            );
        }
        s.save(&path).unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().contains("f1.py"), "no per-file records in the state file");
        assert_eq!(IndexState::load(&path).unwrap().as_ref(), Some(&s));
        // Changed, removed, added.
        s.files.get_mut("f3.py").unwrap().chunks.push(ChunkId(7));
        s.files.remove("f4.py");
        s.files.insert("new.py".into(), FileState { blob: "b".into(), language: "python".into(), chunks: vec![], symbols: 0, syntax_errors: None });
        s.save(&path).unwrap();
        assert_eq!(IndexState::load(&path).unwrap().as_ref(), Some(&s));
        // A state read from the store writes the records it notes as changed.
        let mut loaded = IndexState::load(&path).unwrap().unwrap();
        loaded.files.get_mut("f5.py").unwrap().symbols = 99;
        loaded.files.remove("f6.py");
        loaded
            .files
            .insert("newer.py".into(), FileState { blob: "c".into(), language: "python".into(), chunks: vec![ChunkId(1)], symbols: 1, syntax_errors: None });
        for p in ["f5.py", "f6.py", "newer.py"] {
            loaded.changed_records.note(p);
        }
        loaded.save(&path).unwrap();
        let again = IndexState::load(&path).unwrap().unwrap();
        assert_eq!(again.files, loaded.files);
        s = again;
        // Missing: a clear error.
        let store = dir.path().join(crate::stores::files_store::FILES_STORE);
        let kept = std::fs::read(&store).unwrap();
        std::fs::remove_file(&store).unwrap();
        let err = IndexState::load(&path).unwrap_err().to_string();
        assert!(err.contains("files.redb") && err.contains("run `git rag index` to rebuild the index"), "{err}");
        // Damaged: an error to load, replaced by the next save.
        std::fs::write(&store, &kept[..kept.len() / 3]).unwrap();
        assert!(IndexState::load(&path).is_err());
        s.save(&path).unwrap();
        assert_eq!(IndexState::load(&path).unwrap().as_ref(), Some(&s));
    }

    #[test]
    fn lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let lock = IndexLock::acquire(dir.path(), Duration::from_millis(10)).unwrap();
        assert!(IndexLock::is_held(dir.path()));
        let err = IndexLock::acquire(dir.path(), Duration::from_millis(100)).err().unwrap();
        assert!(err.to_string().contains("another `git rag index` is running"));
        drop(lock);
        assert!(crate::stores::fs::free_within(&dir.path().join(LOCK_FILE), Duration::from_secs(10)));
        IndexLock::acquire(dir.path(), Duration::from_secs(10)).unwrap();
    }
}

//! The embedded backend's vector cache: vectors by (model, text) key, kept in
//! files that several processes read and write at once. Every worktree of a
//! repository shares one ([`crate::settings`] puts it in git's common
//! directory), so a vector is computed once per repository, whichever
//! worktree, branch or rebuild needs it first.
//!
//! Layout: `<root>/<model>_<dims>/`, a set of immutable segment files
//! (`*.vec`), each a sorted run of (id, vector). A writer never touches an
//! existing segment: it writes a new one beside them (temporary name, fsync,
//! rename), so writers need no lock and a kill -9 leaves at most a stray
//! temporary file. A reader lists the segments and looks its ids up in each.
//! When segments pile up, one process (the holder of `compact.lock`,
//! exclusive) merges them into one, renames it into place, then removes
//! what it merged; readers hold that lock shared, so nothing they listed
//! vanishes while they read (a merge waits for them, or is left for later).
//!
//! Segment format (little endian): `GRAGVEC1`, dims u32, count u64, count
//! sorted unique ids (u64), count × dims f32, then the blake3 of the ids
//! block (32 bytes, checked on every read of the ids). A segment whose size
//! or checksum does not add up is skipped with a warning: it is a cache, and
//! what it held is embedded again.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::stores::fs::{FileLock, LockError, LockKind};

use super::{Result, StoreError};

const MAGIC: &[u8; 8] = b"GRAGVEC1";
const HEADER: u64 = 8 + 4 + 8;
const CHECKSUM: u64 = 32;
const SEGMENT_EXT: &str = "vec";
const COMPACT_LOCK: &str = "compact.lock";
/// The index folders that have written this cache, one per line: what
/// `git rag gc` asks before it deletes a vector.
const USERS: &str = "users";
/// Merge the segments when a flush leaves more than this many.
const MAX_SEGMENTS: usize = 8;
/// How long a reader waits for a merge to finish.
const READ_WAIT: Duration = Duration::from_secs(120);
/// A temporary file this old belongs to a writer that died.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The cache of one model and size.
pub struct VectorCache {
    dir: PathBuf,
    dims: usize,
    /// Added since the last flush; also answered by lookups.
    pending: Mutex<HashMap<u64, Vec<f32>>>,
    /// What the caller should be told (damaged segments skipped).
    notices: Mutex<Vec<String>>,
}

/// One segment's ids, read and checked.
struct Segment {
    path: PathBuf,
    ids: Vec<u64>,
}

impl VectorCache {
    /// The cache of `model` at `dims` dimensions under `root` (created on
    /// the first flush).
    pub fn new(root: &Path, model: &str, dims: usize) -> VectorCache {
        VectorCache { dir: root.join(format!("{}_{dims}", super::sanitize(model))), dims, pending: Mutex::new(HashMap::new()), notices: Mutex::new(Vec::new()) }
    }

    /// What happened that the caller should report (and forget).
    pub fn take_notices(&self) -> Vec<String> {
        self.notices.lock().map(|mut n| std::mem::take(&mut *n)).unwrap_or_default()
    }

    /// Where this model's segments are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records that the index in `index_dir` uses this cache (once).
    pub fn register_user(&self, index_dir: &Path) -> Result<()> {
        let index_dir = std::fs::canonicalize(index_dir).unwrap_or_else(|_| index_dir.to_path_buf());
        if self.users().contains(&index_dir) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| self.err(format!("cannot create the directory: {e}")))?;
        let line = format!("{}\n", index_dir.display());
        // One short append: atomic beside other processes' appends.
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(USERS))
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|e| self.err(format!("cannot record the index in {USERS}: {e}")))
    }

    /// The index folders that have written this cache.
    pub fn users(&self) -> Vec<PathBuf> {
        let text = std::fs::read_to_string(self.dir.join(USERS)).unwrap_or_default();
        let mut seen = HashSet::new();
        text.lines().filter(|l| !l.trim().is_empty()).map(PathBuf::from).filter(|p| seen.insert(p.clone())).collect()
    }

    /// Forgets index folders that no longer exist.
    pub fn forget_users(&self, gone: &[PathBuf]) -> Result<()> {
        if gone.is_empty() {
            return Ok(());
        }
        let keep: String = self.users().into_iter().filter(|u| !gone.contains(u)).map(|u| format!("{}\n", u.display())).collect();
        crate::stores::fs::write_atomic(&self.dir.join(USERS), keep.as_bytes(), None)
            .map_err(|(path, e)| self.err(format!("cannot write {}: {e}", path.display())))
    }

    fn err(&self, message: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { place: self.dir.display().to_string(), message: message.to_string() }
    }

    fn pending(&self) -> Result<std::sync::MutexGuard<'_, HashMap<u64, Vec<f32>>>> {
        self.pending.lock().map_err(|_| self.err("a previous cache operation panicked"))
    }

    /// Adds vectors; they reach the disk at the next [`VectorCache::flush`].
    pub fn add(&self, points: impl IntoIterator<Item = (u64, Vec<f32>)>) -> Result<()> {
        let mut pending = self.pending()?;
        for (id, v) in points {
            if v.len() != self.dims {
                return Err(self.err(format!("vector {id:016x} has {} dimensions, not {}", v.len(), self.dims)));
            }
            pending.insert(id, v);
        }
        Ok(())
    }

    /// The vectors of those `ids` the cache holds.
    pub fn get(&self, ids: &[u64]) -> Result<HashMap<u64, Vec<f32>>> {
        let mut out = HashMap::new();
        {
            let pending = self.pending()?;
            for id in ids {
                if let Some(v) = pending.get(id) {
                    out.insert(*id, v.clone());
                }
            }
        }
        let mut wanted: Vec<u64> = ids.iter().copied().filter(|id| !out.contains_key(id)).collect();
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return Ok(out);
        }
        self.with_segments(|segments| {
            let mut found = HashMap::new();
            for seg in segments {
                let positions: Vec<(u64, usize)> =
                    wanted.iter().filter(|id| !found.contains_key(*id)).filter_map(|id| seg.ids.binary_search(id).ok().map(|at| (*id, at))).collect();
                if positions.is_empty() {
                    continue;
                }
                found.extend(self.read_vectors(seg, &positions)?);
            }
            Ok(found)
        })
        .map(|found| {
            out.extend(found);
            out
        })
    }

    /// Every id the cache holds (flushed or not).
    pub fn ids(&self) -> Result<Vec<u64>> {
        let mut all: HashSet<u64> = self.pending()?.keys().copied().collect();
        self.with_segments(|segments| {
            for seg in segments {
                all.extend(seg.ids.iter().copied());
            }
            Ok(())
        })?;
        let mut all: Vec<u64> = all.into_iter().collect();
        all.sort_unstable();
        Ok(all)
    }

    /// Every vector, in id order (for a dump; reads the whole cache).
    pub fn all(&self) -> Result<Vec<(u64, Vec<f32>)>> {
        let ids = self.ids()?;
        let mut found = self.get(&ids)?;
        Ok(ids.into_iter().filter_map(|id| found.remove(&id).map(|v| (id, v))).collect())
    }

    /// Writes what was added since the last flush as a new segment; merges
    /// the segments when there are many and no other process is merging.
    pub fn flush(&self) -> Result<()> {
        let mut pending = self.pending()?;
        if pending.is_empty() {
            return Ok(());
        }
        let mut points: Vec<(u64, Vec<f32>)> = pending.drain().collect();
        drop(pending);
        points.sort_unstable_by_key(|(id, _)| *id);
        std::fs::create_dir_all(&self.dir).map_err(|e| self.err(format!("cannot create the directory: {e}")))?;
        let ids: Vec<u64> = points.iter().map(|(id, _)| *id).collect();
        let written = self.write_segment(&ids, |out| {
            for (_, v) in &points {
                write_vector(out, v)?;
            }
            Ok(())
        });
        if let Err(e) = written {
            // Keep them for the next flush.
            self.pending()?.extend(points);
            return Err(e);
        }
        if self.segment_paths()?.len() > MAX_SEGMENTS {
            self.compact(&HashSet::new(), Duration::ZERO)?;
        }
        Ok(())
    }

    /// Removes `ids` from the cache (gc), waiting up to `wait` for another
    /// process's merge; returns how many were removed.
    pub fn remove(&self, ids: &HashSet<u64>, wait: Duration) -> Result<usize> {
        self.flush()?;
        {
            let mut pending = self.pending()?;
            pending.retain(|id, _| !ids.contains(id));
        }
        match self.compact(ids, wait)? {
            Some(removed) => Ok(removed),
            None => Err(StoreError::Busy { place: self.dir.display().to_string(), waited_ms: wait.as_millis() }),
        }
    }

    /// Merges every segment into one, leaving out `drop`. `None` when
    /// another process holds the merge lock for the whole `wait`.
    fn compact(&self, drop: &HashSet<u64>, wait: Duration) -> Result<Option<usize>> {
        if !self.dir.is_dir() {
            return Ok(Some(0));
        }
        let lock_path = self.dir.join(COMPACT_LOCK);
        let _lock = match FileLock::acquire(&lock_path, LockKind::Exclusive, wait, Duration::from_millis(20), || {}) {
            Ok(lock) => lock,
            Err(LockError::Busy) => return Ok(None),
            Err(LockError::Io(e)) => return Err(self.err(format!("cannot lock {}: {e}", lock_path.display()))),
        };
        self.remove_stale_temporaries();
        // Under the lock nobody else removes segments: this listing stays valid.
        let segments = self.read_segments(&self.segment_paths()?)?;
        if segments.len() <= 1 && drop.is_empty() {
            return Ok(Some(0));
        }
        // Merged order: (id, segment, position); the first segment holding an id wins.
        let mut merged: Vec<(u64, usize, usize)> =
            segments.iter().enumerate().flat_map(|(s, seg)| seg.ids.iter().enumerate().map(move |(at, id)| (*id, s, at))).collect();
        merged.sort_unstable();
        merged.dedup_by_key(|(id, _, _)| *id);
        let before = merged.len();
        merged.retain(|(id, _, _)| !drop.contains(id));
        let removed = before - merged.len();
        if !merged.is_empty() {
            let ids: Vec<u64> = merged.iter().map(|(id, _, _)| *id).collect();
            // Each segment is read front to back: its ids come in its own order.
            let mut readers = segments.iter().map(|seg| self.vector_reader(seg)).collect::<Result<Vec<_>>>()?;
            let mut next = vec![0usize; segments.len()];
            let mut vector = vec![0f32; self.dims];
            self.write_segment(&ids, |out| {
                for &(_, s, at) in &merged {
                    let reader = &mut readers[s];
                    let skip = (at - next[s]) * self.dims * 4;
                    if skip > 0 {
                        reader.seek_relative(skip as i64)?;
                    }
                    read_vector(reader, &mut vector)?;
                    next[s] = at + 1;
                    write_vector(out, &vector)?;
                }
                Ok(())
            })?;
        }
        for seg in &segments {
            match std::fs::remove_file(&seg.path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.err(format!("cannot remove {}: {e}", seg.path.display()))),
            }
        }
        Ok(Some(removed))
    }

    /// Writes a segment of `ids` (sorted, unique) whose vectors `body`
    /// writes in the same order; visible only once complete.
    fn write_segment(&self, ids: &[u64], body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
        let id_bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        let checksum = blake3::hash(&id_bytes);
        let name = format!("{}-{:x}-{:x}", &checksum.to_hex()[..16], std::process::id(), nanos());
        let temp = self.dir.join(format!(".{name}.tmp"));
        let target = self.dir.join(format!("{name}.{SEGMENT_EXT}"));
        let write = || -> std::io::Result<()> {
            let mut out = BufWriter::with_capacity(1 << 20, File::create(&temp)?);
            out.write_all(MAGIC)?;
            out.write_all(&(self.dims as u32).to_le_bytes())?;
            out.write_all(&(ids.len() as u64).to_le_bytes())?;
            out.write_all(&id_bytes)?;
            body(&mut out)?;
            out.write_all(checksum.as_bytes())?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            std::fs::rename(&temp, &target)?;
            // The rename itself durable.
            if let Ok(dir) = File::open(&self.dir) {
                let _ = dir.sync_all();
            }
            Ok(())
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            self.err(format!("cannot write {}: {e}", target.display()))
        })
    }

    fn segment_paths(&self) -> Result<Vec<PathBuf>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.err(format!("cannot list: {e}"))),
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == SEGMENT_EXT) && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
            .collect();
        paths.sort();
        Ok(paths)
    }

    /// Reads the ids of `paths`; a segment that vanished comes back as `Err(NotFound)`
    /// in the outer result so the caller can list again.
    fn read_segments(&self, paths: &[PathBuf]) -> Result<Vec<Segment>> {
        let mut out = Vec::new();
        for path in paths {
            match read_ids(path, self.dims) {
                Ok(ids) => out.push(Segment { path: path.clone(), ids }),
                Err(SegmentError::Gone) => return Err(StoreError::Engine { place: path.display().to_string(), message: GONE.into() }),
                Err(SegmentError::Damaged(why)) => {
                    let notice = format!("vector cache segment {} skipped ({why}); its vectors are embedded again when needed", path.display());
                    if let Ok(mut notices) = self.notices.lock() {
                        if !notices.contains(&notice) {
                            notices.push(notice);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Runs `f` over the current segments. Readers hold `compact.lock`
    /// shared, and a merge removes segments only while it holds it
    /// exclusively, so no segment vanishes under a reader. Where the lock
    /// cannot be taken (a read-only cache), it lists again when a merge
    /// removed one.
    fn with_segments<T>(&self, mut f: impl FnMut(&[Segment]) -> Result<T>) -> Result<T> {
        if !self.dir.is_dir() {
            return f(&[]);
        }
        let lock_path = self.dir.join(COMPACT_LOCK);
        let _reading = match FileLock::acquire(&lock_path, LockKind::Shared, READ_WAIT, Duration::from_millis(5), || {}) {
            Ok(lock) => Some(lock),
            Err(LockError::Busy) => return Err(StoreError::Busy { place: self.dir.display().to_string(), waited_ms: READ_WAIT.as_millis() }),
            Err(LockError::Io(_)) => None,
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = self.read_segments(&self.segment_paths()?).and_then(|segments| f(&segments));
            match outcome {
                Err(StoreError::Engine { message, .. }) if message == GONE && attempt < 5 => continue,
                other => return other,
            }
        }
    }

    fn read_vectors(&self, seg: &Segment, positions: &[(u64, usize)]) -> Result<HashMap<u64, Vec<f32>>> {
        let mut file = File::open(&seg.path).map_err(|e| self.gone_or(e, &seg.path))?;
        let base = HEADER + 8 * seg.ids.len() as u64;
        let mut out = HashMap::with_capacity(positions.len());
        let mut sorted = positions.to_vec();
        sorted.sort_unstable_by_key(|(_, at)| *at);
        for (id, at) in sorted {
            let mut v = vec![0f32; self.dims];
            file.seek(SeekFrom::Start(base + (at * self.dims * 4) as u64))
                .and_then(|_| read_vector(&mut file, &mut v))
                .map_err(|e| self.gone_or(e, &seg.path))?;
            out.insert(id, v);
        }
        Ok(out)
    }

    fn vector_reader(&self, seg: &Segment) -> Result<BufReader<File>> {
        let mut file = File::open(&seg.path).map_err(|e| self.gone_or(e, &seg.path))?;
        file.seek(SeekFrom::Start(HEADER + 8 * seg.ids.len() as u64)).map_err(|e| self.gone_or(e, &seg.path))?;
        Ok(BufReader::with_capacity(1 << 20, file))
    }

    fn gone_or(&self, e: std::io::Error, path: &Path) -> StoreError {
        if e.kind() == std::io::ErrorKind::NotFound {
            StoreError::Engine { place: path.display().to_string(), message: GONE.into() }
        } else {
            self.err(format!("cannot read {}: {e}", path.display()))
        }
    }

    fn remove_stale_temporaries(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let old = e.metadata().ok().and_then(|m| m.modified().ok()).and_then(|t| t.elapsed().ok()).is_some_and(|age| age > STALE_TEMP);
            if name.starts_with('.') && name.ends_with(".tmp") && old {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// The message of a segment removed by a merge while it was being read.
const GONE: &str = "segment removed by a merge";

enum SegmentError {
    Gone,
    Damaged(String),
}

fn read_ids(path: &Path, dims: usize) -> std::result::Result<Vec<u64>, SegmentError> {
    let io = |e: std::io::Error| if e.kind() == std::io::ErrorKind::NotFound { SegmentError::Gone } else { SegmentError::Damaged(e.to_string()) };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut header = [0u8; HEADER as usize];
    file.read_exact(&mut header).map_err(|e| SegmentError::Damaged(format!("short header: {e}")))?;
    if &header[..8] != MAGIC {
        return Err(SegmentError::Damaged("not a vector cache segment".into()));
    }
    let seg_dims = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default()) as usize;
    let count = u64::from_le_bytes(header[12..20].try_into().unwrap_or_default());
    if seg_dims != dims {
        return Err(SegmentError::Damaged(format!("{seg_dims}-dimensional, not {dims}")));
    }
    let expected = count.checked_mul(8 + 4 * dims as u64).and_then(|b| b.checked_add(HEADER + CHECKSUM));
    if expected != Some(len) {
        return Err(SegmentError::Damaged(format!("{len} bytes, the header says {count} vectors")));
    }
    let mut id_bytes = vec![0u8; count as usize * 8];
    file.read_exact(&mut id_bytes).map_err(io)?;
    file.seek(SeekFrom::End(-(CHECKSUM as i64))).map_err(io)?;
    let mut checksum = [0u8; CHECKSUM as usize];
    file.read_exact(&mut checksum).map_err(io)?;
    if blake3::hash(&id_bytes).as_bytes() != &checksum {
        return Err(SegmentError::Damaged("checksum mismatch".into()));
    }
    let ids: Vec<u64> = id_bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())).collect();
    if ids.windows(2).any(|w| w[0] >= w[1]) {
        return Err(SegmentError::Damaged("ids out of order".into()));
    }
    Ok(ids)
}

fn write_vector(out: &mut impl Write, v: &[f32]) -> std::io::Result<()> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    out.write_all(&bytes)
}

fn read_vector(input: &mut impl Read, v: &mut [f32]) -> std::io::Result<()> {
    let mut bytes = vec![0u8; v.len() * 4];
    input.read_exact(&mut bytes)?;
    for (x, b) in v.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Ok(())
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32) -> Vec<f32> {
        vec![x, x + 0.5, -x, 1.0]
    }

    #[test]
    fn vectors_survive_flushes_merges_and_removal() {
        let root = tempfile::tempdir().unwrap();
        let cache = VectorCache::new(root.path(), "Some/Model", 4);
        cache.add([(3, v(3.0)), (1, v(1.0))]).unwrap();
        assert_eq!(cache.get(&[1, 2]).unwrap().len(), 1, "pending vectors are answered");
        cache.flush().unwrap();
        // Another process's view of the same directory.
        let other = VectorCache::new(root.path(), "Some/Model", 4);
        assert_eq!(other.get(&[1, 3, 7]).unwrap(), HashMap::from([(1, v(1.0)), (3, v(3.0))]));
        for i in 10..(10 + MAX_SEGMENTS as u64 + 2) {
            other.add([(i, v(i as f32)), (1, v(1.0))]).unwrap();
            other.flush().unwrap();
        }
        assert!(cache.segment_paths().unwrap().len() <= MAX_SEGMENTS, "segments are merged");
        let ids = cache.ids().unwrap();
        assert_eq!(ids.len(), 2 + MAX_SEGMENTS + 2);
        assert_eq!(cache.get(&ids).unwrap().get(&12), Some(&v(12.0)));
        // Waits: a process another test forks shares the merge lock until it execs.
        let removed = cache.remove(&HashSet::from([3, 12, 999]), Duration::from_secs(10)).unwrap();
        assert_eq!(removed, 2);
        assert_eq!(cache.segment_paths().unwrap().len(), 1);
        let left = cache.all().unwrap();
        assert_eq!(left.len(), ids.len() - 2);
        assert!(left.iter().all(|(id, vec)| *vec == if *id == 1 { v(1.0) } else { v(*id as f32) }));
    }

    #[test]
    fn a_damaged_segment_is_skipped_and_the_rest_answers() {
        let root = tempfile::tempdir().unwrap();
        let cache = VectorCache::new(root.path(), "m", 4);
        cache.add([(1, v(1.0))]).unwrap();
        cache.flush().unwrap();
        cache.add([(2, v(2.0))]).unwrap();
        cache.flush().unwrap();
        let paths = cache.segment_paths().unwrap();
        let bytes = std::fs::read(&paths[0]).unwrap();
        std::fs::write(&paths[0], &bytes[..bytes.len() - 5]).unwrap();
        std::fs::write(cache.dir().join(".half-written.tmp"), b"GRAGVEC1").unwrap();
        assert_eq!(cache.get(&[1, 2]).unwrap().len(), 1, "one segment left to answer");
        let notices = cache.take_notices();
        assert!(notices.len() == 1 && notices[0].contains("skipped"), "{notices:?}");
        assert!(VectorCache::new(root.path(), "m", 8).get(&[1, 2]).unwrap().is_empty(), "another size never meets these vectors");
        assert!(VectorCache::new(root.path(), "m", 4).add([(5, vec![1.0])]).is_err(), "a vector of the wrong size is refused");
    }

    #[test]
    fn writers_in_parallel_lose_nothing() {
        let root = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let root = root.path();
                s.spawn(move || {
                    let cache = VectorCache::new(root, "m", 4);
                    for round in 0..20u64 {
                        let id = t * 100 + round;
                        cache.add([(id, v(id as f32))]).unwrap();
                        cache.flush().unwrap();
                        assert_eq!(cache.get(&[id]).unwrap().len(), 1);
                    }
                });
            }
        });
        let cache = VectorCache::new(root.path(), "m", 4);
        assert_eq!(cache.ids().unwrap().len(), 80);
    }
}

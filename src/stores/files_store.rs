//! `files.redb` beside `.rag_index_state.json`: what the index holds for
//! each file (blob id, language, chunk ids, symbol count), one record per
//! path in a redb table, so a run rewrites the records that changed and not
//! the 8 MB of JSON a big repository's state was.
//!
//! Crash safety: [`save`] commits the records before the state file is
//! replaced, and the run's journal goes last; a run killed between the two
//! leaves the new records beside the old state file, and the journal makes
//! the next run redo that commit's paths (their records come out the same).

use std::collections::BTreeMap;
use std::path::Path;

use redb::{ReadableDatabase, ReadableTable, TableDefinition};

use super::state::{ChunkId, ErrorLines, FileState, StateError};

pub const FILES_STORE: &str = "files.redb";

const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");

/// A record as stored: blob id, language, chunk ids, symbols, then the
/// lines and error lines of a file with syntax errors. A record without the
/// last (written before it was recorded) reads as one without errors.
type Record = (String, String, Vec<u128>, u64, Option<(u64, u64)>);
type RecordBefore = (String, String, Vec<u128>, u64);

fn corrupt(path: &Path, message: impl std::fmt::Display) -> StateError {
    StateError::Corrupt { path: path.to_path_buf(), message: message.to_string() }
}

fn database(path: &Path, create: bool) -> Result<Option<std::sync::Arc<redb::Database>>, StateError> {
    super::redb_handle::open(path, 8 << 20, create).map_err(|e| corrupt(path, e))
}

fn decode(path: &Path, bytes: &[u8]) -> Result<FileState, StateError> {
    let config = bincode::config::standard();
    let ((blob, language, chunks, symbols, errors), _): (Record, _) = match bincode::serde::decode_from_slice(bytes, config) {
        Ok(record) => record,
        Err(_) => {
            let ((blob, language, chunks, symbols), n): (RecordBefore, _) = bincode::serde::decode_from_slice(bytes, config).map_err(|e| corrupt(path, e))?;
            ((blob, language, chunks, symbols, None), n)
        }
    };
    let syntax_errors = errors.map(|(lines, error_lines)| ErrorLines { lines: lines as usize, error_lines: error_lines as usize });
    Ok(FileState { blob, language, chunks: chunks.into_iter().map(ChunkId).collect(), symbols: symbols as usize, syntax_errors })
}

fn encode(path: &Path, f: &FileState) -> Result<Vec<u8>, StateError> {
    let errors = f.syntax_errors.map(|e| (e.lines as u64, e.error_lines as u64));
    let record: (&str, &str, Vec<u128>, u64, Option<(u64, u64)>) = (&f.blob, &f.language, f.chunks.iter().map(|c| c.0).collect(), f.symbols as u64, errors);
    bincode::serde::encode_to_vec(record, bincode::config::standard()).map_err(|e| corrupt(path, e))
}

/// Every file's record in `dir`; `None` when there is no store.
pub fn load(dir: &Path) -> Result<Option<BTreeMap<String, FileState>>, StateError> {
    let path = dir.join(FILES_STORE);
    let Some(db) = database(&path, false)? else { return Ok(None) };
    let txn = db.begin_read().map_err(|e| corrupt(&path, e))?;
    let table = match txn.open_table(FILES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Some(BTreeMap::new())),
        Err(e) => return Err(corrupt(&path, e)),
    };
    let mut files = BTreeMap::new();
    for row in table.iter().map_err(|e| corrupt(&path, e))? {
        let (k, v) = row.map_err(|e| corrupt(&path, e))?;
        files.insert(k.value().to_string(), decode(&path, v.value())?);
    }
    Ok(Some(files))
}

/// Writes the records of `changed` paths as `files` (every record) has them,
/// removing those it lacks: a run that read the store and changed those. A
/// store that does not open (damaged since) is replaced whole, as by [`save`].
pub fn update(dir: &Path, files: &BTreeMap<String, FileState>, changed: &std::collections::BTreeSet<String>) -> Result<(), StateError> {
    let path = dir.join(FILES_STORE);
    let Ok(Some(db)) = database(&path, false) else { return save(dir, files) };
    let txn = db.begin_write().map_err(|e| corrupt(&path, e))?;
    {
        let mut table = txn.open_table(FILES).map_err(|e| corrupt(&path, e))?;
        for p in changed {
            match files.get(p) {
                Some(f) => table.insert(p.as_str(), encode(&path, f)?.as_slice()).map(|_| ()),
                None => table.remove(p.as_str()).map(|_| ()),
            }
            .map_err(|e| corrupt(&path, e))?;
        }
    }
    txn.commit().map_err(|e| corrupt(&path, e))
}

/// Makes the store in `dir` hold exactly `files`, writing only the records
/// that differ. A store that does not open (damaged) is replaced whole.
pub fn save(dir: &Path, files: &BTreeMap<String, FileState>) -> Result<(), StateError> {
    let path = dir.join(FILES_STORE);
    let db = match database(&path, true) {
        Ok(Some(db)) => db,
        _ => {
            std::fs::remove_file(&path).map_err(|e| corrupt(&path, e))?;
            database(&path, true)?.ok_or_else(|| corrupt(&path, "cannot be created"))?
        }
    };
    let txn = db.begin_write().map_err(|e| corrupt(&path, e))?;
    {
        let mut table = txn.open_table(FILES).map_err(|e| corrupt(&path, e))?;
        // What is stored, against what should be: both in path order.
        let mut stale: Vec<String> = Vec::new();
        let mut changed: Vec<&str> = Vec::new();
        let mut wanted = files.iter().peekable();
        for row in table.iter().map_err(|e| corrupt(&path, e))? {
            let (k, v) = row.map_err(|e| corrupt(&path, e))?;
            let key = k.value();
            while let Some((p, _)) = wanted.peek().filter(|(p, _)| p.as_str() < key) {
                changed.push(p.as_str());
                wanted.next();
            }
            match wanted.peek() {
                Some((p, f)) if p.as_str() == key => {
                    if decode(&path, v.value()).ok().as_ref() != Some(*f) {
                        changed.push(p.as_str());
                    }
                    wanted.next();
                }
                _ => stale.push(key.to_string()),
            }
        }
        changed.extend(wanted.map(|(p, _)| p.as_str()));
        for p in stale {
            table.remove(p.as_str()).map_err(|e| corrupt(&path, e))?;
        }
        for p in changed {
            table.insert(p, encode(&path, &files[p])?.as_slice()).map_err(|e| corrupt(&path, e))?;
        }
    }
    txn.commit().map_err(|e| corrupt(&path, e))
}

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

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

use super::state::{ChunkId, ErrorLines, FileState, StateError};

pub const FILES_STORE: &str = "files.redb";

const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");

/// Each record's head (blob id, language) again, by path: what a query
/// reads, ~5 MB of the kernel's 71 MB store. Written in the transaction
/// that writes the records (state schema 3 on: an older git-rag refuses the
/// index rather than update records without heads); one that does not hold
/// a head for every record is rewritten whole by the next run and, until
/// then, read from the records.
const HEADS: TableDefinition<&str, &[u8]> = TableDefinition::new("heads");

/// A record as stored: blob id, language, chunk ids, symbols, then the
/// lines and error lines of a file with syntax errors. A record without the
/// last (written before it was recorded) reads as one without errors.
type Record = (String, String, Vec<u128>, u64, Option<(u64, u64)>);
type RecordBefore = (String, String, Vec<u128>, u64);

fn corrupt(path: &Path, message: impl std::fmt::Display) -> StateError {
    StateError::corrupt(path, message.to_string())
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

/// What a load decodes of each record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// Everything: what an index run updates and saves.
    Whole,
    /// The blob id and language alone (chunk ids empty, counts zero): what
    /// a query reads. On the Linux kernel the chunk ids of 78,600 files
    /// were most of the ~70 ms a query spent opening the index.
    ForQueries,
}

/// The blob id and language at the head of a record (every version of it
/// starts so; a [`HEADS`] entry is just that).
fn decode_head(path: &Path, bytes: &[u8]) -> Result<FileState, StateError> {
    let ((blob, language), _): ((String, String), _) = bincode::serde::decode_from_slice(bytes, bincode::config::standard()).map_err(|e| corrupt(path, e))?;
    Ok(FileState { blob, language, chunks: Vec::new(), symbols: 0, syntax_errors: None })
}

fn encode_head(path: &Path, f: &FileState) -> Result<Vec<u8>, StateError> {
    bincode::serde::encode_to_vec((&f.blob, &f.language), bincode::config::standard()).map_err(|e| corrupt(path, e))
}

/// Every file's record in `dir`, as much of each as `records` says; `None`
/// when there is no store.
/// A damaged store is [`StateError::Corrupt`], also where redb panics on it.
pub fn load(dir: &Path, records: Records) -> Result<Option<BTreeMap<String, FileState>>, StateError> {
    let path = dir.join(FILES_STORE);
    crate::stores::panic_guard::guard(|| load_from(&path, records), |panic| corrupt(&path, panic))
}

fn load_from(path: &Path, records: Records) -> Result<Option<BTreeMap<String, FileState>>, StateError> {
    let path = path.to_path_buf();
    let Some(db) = database(&path, false)? else { return Ok(None) };
    let txn = db.begin_read().map_err(|e| corrupt(&path, e))?;
    let table = match txn.open_table(FILES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Some(BTreeMap::new())),
        Err(e) => return Err(corrupt(&path, e)),
    };
    let heads = match txn.open_table(HEADS) {
        Ok(h) if records == Records::ForQueries && h.len().ok() == table.len().ok() => Some(h),
        _ => None,
    };
    let decode_row = |row: Result<(redb::AccessGuard<&str>, redb::AccessGuard<&[u8]>), redb::StorageError>| {
        let (k, v) = row.map_err(|e| corrupt(&path, e))?;
        let record = match records {
            Records::Whole => decode(&path, v.value())?,
            Records::ForQueries => decode_head(&path, v.value())?,
        };
        Ok((k.value().to_string(), record))
    };
    // Rows come in path order: the map is built in one pass, not by inserts.
    let files = match heads {
        Some(heads) => heads.iter().map_err(|e| corrupt(&path, e))?.map(decode_row).collect::<Result<_, StateError>>()?,
        None => table.iter().map_err(|e| corrupt(&path, e))?.map(decode_row).collect::<Result<_, StateError>>()?,
    };
    Ok(Some(files))
}

/// Writes the head of every record of `files` whose head `heads` lacks or
/// holds otherwise, and drops heads of paths `files` lacks, when the heads
/// table does not hold one per record: a store from before it, or a damaged
/// one.
fn complete_heads(path: &Path, txn: &redb::WriteTransaction, files: &BTreeMap<String, FileState>) -> Result<(), StateError> {
    let mut heads = txn.open_table(HEADS).map_err(|e| corrupt(path, e))?;
    if heads.len().map_err(|e| corrupt(path, e))? == files.len() as u64 {
        return Ok(());
    }
    heads.retain(|_, _| false).map_err(|e| corrupt(path, e))?;
    for (p, f) in files {
        heads.insert(p.as_str(), encode_head(path, f)?.as_slice()).map_err(|e| corrupt(path, e))?;
    }
    Ok(())
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
        let mut heads = txn.open_table(HEADS).map_err(|e| corrupt(&path, e))?;
        for p in changed {
            match files.get(p) {
                Some(f) => {
                    let (record, head) = (encode(&path, f)?, encode_head(&path, f)?);
                    table.insert(p.as_str(), record.as_slice()).and_then(|_| heads.insert(p.as_str(), head.as_slice())).map(|_| ())
                }
                None => table.remove(p.as_str()).and_then(|_| heads.remove(p.as_str())).map(|_| ()),
            }
            .map_err(|e| corrupt(&path, e))?;
        }
    }
    complete_heads(&path, &txn, files)?;
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
        let mut heads = txn.open_table(HEADS).map_err(|e| corrupt(&path, e))?;
        for p in stale {
            table.remove(p.as_str()).map_err(|e| corrupt(&path, e))?;
            heads.remove(p.as_str()).map_err(|e| corrupt(&path, e))?;
        }
        for p in changed {
            table.insert(p, encode(&path, &files[p])?.as_slice()).map_err(|e| corrupt(&path, e))?;
            heads.insert(p, encode_head(&path, &files[p])?.as_slice()).map_err(|e| corrupt(&path, e))?;
        }
    }
    complete_heads(&path, &txn, files)?;
    txn.commit().map_err(|e| corrupt(&path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::state::ChunkId;

    fn record(blob: &str, language: &str, chunks: &[u128]) -> FileState {
        FileState {
            blob: blob.into(),
            language: language.into(),
            chunks: chunks.iter().copied().map(ChunkId).collect(),
            symbols: chunks.len(),
            syntax_errors: None,
        }
    }

    fn heads_of(files: &BTreeMap<String, FileState>) -> BTreeMap<String, (String, String)> {
        files.iter().map(|(p, f)| (p.clone(), (f.blob.clone(), f.language.clone()))).collect()
    }

    fn stored_heads(dir: &Path) -> u64 {
        let db = database(&dir.join(FILES_STORE), false).expect("opens").expect("exists");
        let txn = db.begin_read().expect("read");
        txn.open_table(HEADS).map_or(0, |t| t.len().expect("len"))
    }

    #[test]
    fn queries_read_the_heads_and_a_store_without_them_gets_them_on_the_next_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut files: BTreeMap<String, FileState> =
            [("a.rs", record("b1", "rust", &[1, 2])), ("b.py", record("b2", "python", &[3]))].into_iter().map(|(p, f)| (p.to_string(), f)).collect();
        save(dir.path(), &files).expect("save");
        assert_eq!(load(dir.path(), Records::Whole).expect("load"), Some(files.clone()));
        let read = load(dir.path(), Records::ForQueries).expect("load").expect("a store");
        assert_eq!(heads_of(&read), heads_of(&files));
        assert!(read.values().all(|f| f.chunks.is_empty()), "queries do not read chunk ids");

        // A store from before the heads table: read from the records until a run writes them all.
        {
            let db = database(&dir.path().join(FILES_STORE), false).expect("opens").expect("exists");
            let txn = db.begin_write().expect("write");
            txn.delete_table(HEADS).expect("delete");
            txn.commit().expect("commit");
        }
        assert_eq!(stored_heads(dir.path()), 0);
        assert_eq!(heads_of(&load(dir.path(), Records::ForQueries).expect("load").expect("a store")), heads_of(&files));
        files.insert("c.go".into(), record("b3", "go", &[4]));
        update(dir.path(), &files, &["c.go".to_string()].into()).expect("update");
        assert_eq!(stored_heads(dir.path()), 3, "the first write completes the heads");
        files.remove("a.rs");
        files.insert("b.py".into(), record("b4", "python", &[5]));
        update(dir.path(), &files, &["a.rs".to_string(), "b.py".to_string()].into()).expect("update");
        assert_eq!(stored_heads(dir.path()), 2);
        assert_eq!(heads_of(&load(dir.path(), Records::ForQueries).expect("load").expect("a store")), heads_of(&files));
        assert_eq!(load(dir.path(), Records::Whole).expect("load"), Some(files));
    }
}

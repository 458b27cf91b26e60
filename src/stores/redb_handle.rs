//! One redb handle per database file and process. redb refuses a second
//! open of a file in one process (a query and an index run share the MCP
//! server's), so every open goes through here; other processes open the
//! file beside this one (`MultiWriter`: queries and `status` read while a run
//! writes; the index lock keeps writers one at a time).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use redb::Database;

fn registry() -> std::sync::MutexGuard<'static, HashMap<PathBuf, Weak<Database>>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<Database>>>> = OnceLock::new();
    // The map holds no invariant a panicking holder could break.
    OPEN.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process's handle of the database at `path`: opened (or, with
/// `create`, created) with a page cache of `cache_bytes` if no handle is
/// alive; `None` when there is no file and `create` is false.
pub fn open(path: &Path, cache_bytes: usize, create: bool) -> Result<Option<Arc<Database>>, redb::DatabaseError> {
    let mut open = registry();
    if let Some(db) = open.get(path).and_then(Weak::upgrade) {
        return Ok(Some(db));
    }
    let mut builder = Database::builder();
    builder.set_cache_size(cache_bytes).set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    // redb's plain open may panic on a file damaged outside redb: its error instead.
    let corrupted = |panic: String| redb::DatabaseError::Storage(redb::StorageError::Corrupted(panic));
    let db = if path.is_file() {
        crate::stores::panic_guard::guard(|| builder.open(path), corrupted)?
    } else if create {
        crate::stores::panic_guard::guard(|| builder.create(path), corrupted)?
    } else {
        return Ok(None);
    };
    let db = Arc::new(db);
    open.insert(path.to_path_buf(), Arc::downgrade(&db));
    Ok(Some(db))
}

/// Whether this process holds a handle of the file at `path`.
pub fn is_open(path: &Path) -> bool {
    registry().get(path).is_some_and(|db| db.strong_count() > 0)
}

/// Forgets the handle of a file just replaced by a rename: the next open
/// reads the new file, while holders of the old handle go on reading the
/// old one (a consistent snapshot) until they drop it.
pub fn forget(path: &Path) {
    registry().remove(path);
}

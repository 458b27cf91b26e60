//! File helpers every store shares: replacing a file atomically, and OS
//! file locks (released with the process however it dies).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An I/O error with what was being done and to which path. The I/O error
/// is part of the message, not a `source`, so that a chain printed with
/// `{:#}` does not repeat it.
#[derive(Debug, thiserror::Error)]
#[error("{action} {}: {error}", path.display())]
pub struct PathError {
    pub action: &'static str,
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// `map_err(at("cannot write", &path))`: an I/O error with its context.
pub fn at<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> PathError + 'p {
    move |error| PathError { action, path: path.to_path_buf(), error }
}

/// Replaces `path` with `data` atomically: a temp file in the same
/// directory, fsync, rename over the target, fsync the directory. `mode`
/// sets Unix permissions on the new file. A failed write removes its temp
/// file (it holds the space the next run needs).
pub fn write_atomic(path: &Path, data: &[u8], mode: Option<u32>) -> Result<(), (PathBuf, std::io::Error)> {
    let tmp = {
        let mut s = path.as_os_str().to_os_string();
        s.push(format!(".tmp.{}", std::process::id()));
        PathBuf::from(s)
    };
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err((tmp, e));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err((path.to_path_buf(), e));
    }
    if let Some(dir) = path.parent() {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Shared (readers) or exclusive (a writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

/// An OS lock on a file, held until dropped or the process ends.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

/// Why a lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Someone else held it for the whole wait.
    Busy,
    Io(std::io::Error),
}

impl FileLock {
    /// Takes the lock on `path` (created if missing), polling every `poll`
    /// for up to `wait`; `on_first_wait` runs once if it has to wait.
    pub fn acquire(path: &Path, kind: LockKind, wait: Duration, poll: Duration, mut on_first_wait: impl FnMut()) -> Result<FileLock, LockError> {
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(path).map_err(LockError::Io)?;
        let start = Instant::now();
        let mut waited = false;
        loop {
            let attempt = match kind {
                LockKind::Shared => file.try_lock_shared(),
                LockKind::Exclusive => file.try_lock(),
            };
            match attempt {
                Ok(()) => return Ok(FileLock { file }),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    if !waited {
                        waited = true;
                        on_first_wait();
                    }
                    std::thread::sleep(poll);
                }
                Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::Busy),
                Err(std::fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
            }
        }
    }

    /// Takes the exclusive lock without waiting: `None` when someone holds it.
    pub fn try_exclusive(path: &Path) -> std::io::Result<Option<FileLock>> {
        match FileLock::acquire(path, LockKind::Exclusive, Duration::ZERO, Duration::ZERO, || {}) {
            Ok(lock) => Ok(Some(lock)),
            Err(LockError::Busy) => Ok(None),
            Err(LockError::Io(e)) => Err(e),
        }
    }

    /// Writes this process's id into the lock file, for status reports.
    pub fn record_pid(&self) {
        let _ = self.file.set_len(0);
        let _ = (&self.file).write_all(std::process::id().to_string().as_bytes());
    }

    /// Whether some process holds an exclusive lock on `path` right now.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = File::open(path) else { return false };
        matches!(file.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
    }

    /// The process id recorded by the holder ([`FileLock::record_pid`]).
    pub fn holder_pid(path: &Path) -> Option<u32> {
        std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok())
    }
}

/// Whether the lock on `path` is free within `wait`. For tests that take a
/// lock again after dropping it: a process another test forks while the lock
/// is held shares it until that process execs.
#[cfg(test)]
pub(crate) fn free_within(path: &Path, wait: Duration) -> bool {
    let start = Instant::now();
    while FileLock::is_held(path) {
        if start.elapsed() >= wait {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_excludes_and_write_replaces() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lock_path = dir.path().join("x.lock");
        let held = FileLock::try_exclusive(&lock_path).expect("io").expect("free");
        held.record_pid();
        assert!(FileLock::is_held(&lock_path));
        assert_eq!(FileLock::holder_pid(&lock_path), Some(std::process::id()));
        assert!(FileLock::try_exclusive(&lock_path).expect("io").is_none());
        assert!(matches!(FileLock::acquire(&lock_path, LockKind::Shared, Duration::from_millis(30), Duration::from_millis(5), || {}), Err(LockError::Busy)));
        drop(held);
        assert!(free_within(&lock_path, Duration::from_secs(10)));

        let target = dir.path().join("f.json");
        write_atomic(&target, b"one", None).expect("write");
        write_atomic(&target, b"two", Some(0o755)).expect("write");
        assert_eq!(std::fs::read(&target).expect("read"), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 2, "no temp file left");
    }
}

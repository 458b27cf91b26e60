//! Git hooks that keep the index at HEAD: `git rag hooks install|uninstall|status`,
//! the trigger the hooks call (`git rag hooks run <hook> …`) and the background
//! runner it starts (`git rag hooks runner`).
//!
//! - **Install** writes the scripts of `hooks/` (embedded in the binary) into
//!   the hooks directory: `core.hooksPath` when set (relative to the worktree
//!   root), else `hooks/` of the common git dir, so linked worktrees share them.
//!   A hook that is already there and is not ours is renamed to
//!   `<hook>.git-rag-orig` (same inode: same bytes, same mode) and our script
//!   runs it first, with the same arguments and stdin, and exits with its
//!   status. Uninstall renames it back, or removes our script.
//! - **Trigger** (in the hook, on the git command's time): writes the request
//!   marker `hook.requested`, and unless a runner holds `hook.lock`, spawns a
//!   runner in its own process group with stdin from `/dev/null` and output to
//!   `hook.log`; then returns.
//! - **Runner** (detached): takes `hook.lock` without waiting (another runner
//!   means there is nothing to do), waits until the marker has been quiet for
//!   [`QUIET`] (at most [`MAX_DELAY`]), removes it, brings the index to HEAD
//!   (holding the index lock only during that run), and repeats while the
//!   marker came back. After letting go of `hook.lock` it looks at the marker
//!   once more, so a request written while it was leaving is not lost: the
//!   trigger writes the marker *before* it looks at the lock.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::stores::fs::{at as io, FileLock};

use crate::git::Repo;

/// The hooks git-rag installs, with their scripts (`hooks/` in the source tree).
pub const HOOKS: [(&str, &str); 4] = [
    ("post-commit", include_str!("../hooks/post-commit")),
    ("post-merge", include_str!("../hooks/post-merge")),
    ("post-checkout", include_str!("../hooks/post-checkout")),
    ("post-rewrite", include_str!("../hooks/post-rewrite")),
];
/// A line every script of ours carries; how `install` recognises its own hooks.
pub const MARKER: &str = "git-rag-managed-hook";
/// Suffix of a hook that was there before ours, kept and chained.
pub const ORIG_SUFFIX: &str = ".git-rag-orig";
/// In the index dir: the runner's log, its lock, the request marker, its record.
pub const LOG_FILE: &str = "hook.log";
pub const RUNNER_LOCK: &str = "hook.lock";
pub const REQUEST_FILE: &str = "hook.requested";
pub const HOOK_STATE_FILE: &str = "hook_state.json";
/// `hook.log` is moved to `hook.log.1` when it grows past this.
pub const MAX_LOG_BYTES: u64 = 1 << 20;
/// The runner starts once no hook has fired for this long…
pub const QUIET: Duration = Duration::from_millis(250);
/// …or once it has waited this long.
pub const MAX_DELAY: Duration = Duration::from_secs(5);
/// How long a hook run waits for another indexer (`git rag index`, MCP).
pub const INDEX_LOCK_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    State(#[from] crate::stores::state::StateError),
    #[error(transparent)]
    Io(#[from] crate::stores::fs::PathError),
    #[error("cannot start the background indexer {exe}: {error}")]
    Spawn { exe: PathBuf, error: std::io::Error },
}

pub type Result<T> = std::result::Result<T, HookError>;

// ---------------------------------------------------------------- install

/// The directory git runs this repository's hooks from: `core.hooksPath`
/// (`~/` expanded; relative to the worktree root, or to the git dir of a bare
/// repository), else `<common git dir>/hooks`.
pub fn hooks_dir(repo: &Repo) -> PathBuf {
    let local = repo.local();
    let configured = local.config_snapshot().string("core.hooksPath").map(|s| s.to_string()).filter(|s| !s.is_empty());
    match configured {
        Some(p) => {
            let path = match (p.strip_prefix("~/"), crate::env::home()) {
                (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
                _ => PathBuf::from(p),
            };
            if path.is_absolute() {
                path
            } else {
                local.workdir().unwrap_or_else(|| local.git_dir()).join(path)
            }
        }
        None => local.common_dir().join("hooks"),
    }
}

/// The directory to run repository commands from: the worktree, or the git
/// dir of a bare repository.
pub fn repo_root(repo: &Repo) -> PathBuf {
    let local = repo.local();
    local.workdir().unwrap_or_else(|| local.git_dir()).to_path_buf()
}

/// What is in the hooks dir under one hook's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookState {
    /// Our script, nothing chained.
    Installed,
    /// Our script, running the saved original first.
    Chained,
    /// Nothing.
    Missing,
    /// Somebody else's hook (install would chain it).
    Foreign,
}

impl HookState {
    pub fn as_str(self) -> &'static str {
        match self {
            HookState::Installed => "installed",
            HookState::Chained => "chained",
            HookState::Missing => "missing",
            HookState::Foreign => "foreign",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct HookReport {
    pub name: String,
    pub path: PathBuf,
    pub state: HookState,
    /// Ours, but not the script this binary would write (`install` updates it).
    pub outdated: bool,
    /// The saved original (`<hook>.git-rag-orig`), when there is one.
    pub original: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HooksStatus {
    pub hooks_dir: PathBuf,
    pub hooks: Vec<HookReport>,
    /// Whether the hooks will find `git-rag` (they do nothing without it).
    pub git_rag_on_path: bool,
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

fn orig_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(ORIG_SUFFIX);
    PathBuf::from(s)
}

/// Whether `path` is a regular file written by us (any version).
fn is_ours(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
    if !meta.is_file() {
        return false;
    }
    let Ok(f) = File::open(path) else { return false };
    let mut head = Vec::with_capacity(512);
    if f.take(512).read_to_end(&mut head).is_err() {
        return false;
    }
    String::from_utf8_lossy(&head).lines().take(3).any(|l| l.starts_with('#') && l.contains(MARKER))
}

fn inspect(dir: &Path, name: &str, script: &str) -> HookReport {
    let path = dir.join(name);
    let orig = orig_path(&path);
    let original = exists(&orig).then(|| orig.clone());
    let (state, outdated) = if !exists(&path) {
        (HookState::Missing, false)
    } else if is_ours(&path) {
        let current = std::fs::read(&path).map(|b| b == script.as_bytes()).unwrap_or(false);
        (if original.is_some() { HookState::Chained } else { HookState::Installed }, !current)
    } else {
        (HookState::Foreign, false)
    };
    HookReport { name: name.to_string(), path, state, outdated, original }
}

/// What each hook looks like in `dir`.
pub fn status_in(dir: &Path) -> HooksStatus {
    HooksStatus {
        hooks_dir: dir.to_path_buf(),
        hooks: HOOKS.iter().map(|(name, script)| inspect(dir, name, script)).collect(),
        git_rag_on_path: on_path("git-rag"),
    }
}

pub fn status(repo: &Repo) -> HooksStatus {
    status_in(&hooks_dir(repo))
}

/// Whether an executable `name` is on `PATH`.
pub fn on_path(name: &str) -> bool {
    let Some(path) = crate::env::path() else { return false };
    std::env::split_paths(&path).any(|d| is_executable(&d.join(name)))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// What `install` or `uninstall` did to one hook.
#[derive(Debug, Clone, Serialize)]
pub struct HookAction {
    pub name: String,
    pub path: PathBuf,
    pub action: HookActionKind,
    pub detail: Option<String>,
}

/// What install or uninstall did to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookActionKind {
    // install
    Installed,
    Chained,
    Updated,
    Unchanged,
    Conflict,
    // uninstall
    Removed,
    Restored,
    NotInstalled,
    Foreign,
}

impl HookActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HookActionKind::Installed => "installed",
            HookActionKind::Chained => "chained",
            HookActionKind::Updated => "updated",
            HookActionKind::Unchanged => "unchanged",
            HookActionKind::Conflict => "conflict",
            HookActionKind::Removed => "removed",
            HookActionKind::Restored => "restored",
            HookActionKind::NotInstalled => "not_installed",
            HookActionKind::Foreign => "foreign",
        }
    }

    /// Whether the hook is ours (and active) after this action.
    pub fn installs(self) -> bool {
        !matches!(self, HookActionKind::Removed | HookActionKind::Restored | HookActionKind::NotInstalled)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct HooksChange {
    pub hooks_dir: PathBuf,
    pub hooks: Vec<HookAction>,
    pub git_rag_on_path: bool,
}

impl HooksChange {
    /// Whether some hook could not be handled.
    pub fn has_conflicts(&self) -> bool {
        self.hooks.iter().any(|h| h.action == HookActionKind::Conflict)
    }
}

/// Writes `script` to `path` as an executable file, atomically (git may run
/// the hook at any moment).
fn write_script(path: &Path, script: &str) -> Result<()> {
    crate::stores::fs::write_atomic(path, script.as_bytes(), Some(0o755)).map_err(|(at, e)| io("cannot write", &at)(e).into())
}

/// Installs every hook into `dir` (created if needed). Idempotent: our own
/// scripts are updated in place, never chained to themselves.
pub fn install_in(dir: &Path) -> Result<HooksChange> {
    std::fs::create_dir_all(dir).map_err(io("cannot create the hooks directory", dir))?;
    let mut hooks = Vec::new();
    for (name, script) in HOOKS {
        let path = dir.join(name);
        let orig = orig_path(&path);
        let (action, detail) = if is_ours(&path) {
            if std::fs::read(&path).map(|b| b == script.as_bytes()).unwrap_or(false) {
                (HookActionKind::Unchanged, None)
            } else {
                write_script(&path, script)?;
                (HookActionKind::Updated, None)
            }
        } else if exists(&path) {
            if exists(&orig) {
                let detail = format!(
                    "{} is not git-rag's, and {} (saved by an earlier install) is in the way; move one of them and run `git rag hooks install` again",
                    path.display(),
                    orig.display()
                );
                (HookActionKind::Conflict, Some(detail))
            } else {
                std::fs::rename(&path, &orig).map_err(io("cannot move aside", &path))?;
                if let Err(e) = write_script(&path, script) {
                    // Put the user's hook back rather than leave no hook at all.
                    let _ = std::fs::rename(&orig, &path);
                    return Err(e);
                }
                (HookActionKind::Chained, Some(format!("the existing hook runs first, kept as {}", orig.display())))
            }
        } else {
            write_script(&path, script)?;
            if exists(&orig) {
                (HookActionKind::Chained, Some(format!("runs {} first", orig.display())))
            } else {
                (HookActionKind::Installed, None)
            }
        };
        hooks.push(HookAction { name: name.to_string(), path, action, detail });
    }
    Ok(HooksChange { hooks_dir: dir.to_path_buf(), hooks, git_rag_on_path: on_path("git-rag") })
}

pub fn install(repo: &Repo) -> Result<HooksChange> {
    install_in(&hooks_dir(repo))
}

/// Removes our hooks from `dir`, putting back each saved original exactly
/// (a rename: same bytes, same mode). Hooks that are not ours are left alone.
pub fn uninstall_in(dir: &Path) -> Result<HooksChange> {
    let mut hooks = Vec::new();
    for (name, _) in HOOKS {
        let path = dir.join(name);
        let orig = orig_path(&path);
        let (action, detail) = if is_ours(&path) {
            if exists(&orig) {
                std::fs::rename(&orig, &path).map_err(io("cannot restore", &orig))?;
                (HookActionKind::Restored, Some(format!("put back the hook saved as {}", orig.display())))
            } else {
                std::fs::remove_file(&path).map_err(io("cannot remove", &path))?;
                (HookActionKind::Removed, None)
            }
        } else if exists(&path) {
            let detail = exists(&orig).then(|| format!("not git-rag's; the hook saved as {} is left there too", orig.display()));
            (HookActionKind::Foreign, detail)
        } else if exists(&orig) {
            // Our script was deleted by hand: the original still belongs here.
            std::fs::rename(&orig, &path).map_err(io("cannot restore", &orig))?;
            (HookActionKind::Restored, Some(format!("put back the hook saved as {}", orig.display())))
        } else {
            (HookActionKind::NotInstalled, None)
        };
        hooks.push(HookAction { name: name.to_string(), path, action, detail });
    }
    Ok(HooksChange { hooks_dir: dir.to_path_buf(), hooks, git_rag_on_path: on_path("git-rag") })
}

pub fn uninstall(repo: &Repo) -> Result<HooksChange> {
    uninstall_in(&hooks_dir(repo))
}

// ---------------------------------------------------------------- trigger

/// What the trigger did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Triggered {
    /// Nothing to do (a post-checkout of files, not of a branch).
    Skipped,
    /// A runner is active; it will see the request.
    Coalesced,
    /// A runner was started with this pid.
    Spawned(u32),
}

/// Called by the hook scripts (`git rag hooks run <hook> <args>…`): asks for
/// an index update and returns at once.
pub fn trigger(repo: &Repo, index_dir: &Path, hook: &str, args: &[String]) -> Result<Triggered> {
    // post-checkout <old> <new> <flag>: flag 0 is a checkout of paths; HEAD did not move.
    if hook == "post-checkout" && args.get(2).is_some_and(|f| f == "0") {
        return Ok(Triggered::Skipped);
    }
    let index_dir = std::path::absolute(index_dir).map_err(io("cannot resolve", index_dir))?;
    std::fs::create_dir_all(&index_dir).map_err(io("cannot create the index directory", &index_dir))?;
    // The request first, then the lock: see the module doc.
    let marker = index_dir.join(REQUEST_FILE);
    std::fs::write(&marker, hook.as_bytes()).map_err(io("cannot write", &marker))?;
    if runner_active(&index_dir) {
        return Ok(Triggered::Coalesced);
    }
    let log_path = index_dir.join(LOG_FILE);
    bound_log(&log_path);
    let log = OpenOptions::new().create(true).append(true).open(&log_path).map_err(io("cannot open", &log_path))?;
    let log2 = log.try_clone().map_err(io("cannot open", &log_path))?;
    // This binary; or, when it was replaced since it started (an upgrade), the
    // `git-rag` on PATH.
    let exe = std::env::current_exe().ok().filter(|p| p.is_file()).unwrap_or_else(|| PathBuf::from("git-rag"));
    let mut cmd = Command::new(&exe);
    cmd.arg("-C").arg(repo_root(repo)).arg("--index-dir").arg(&index_dir).args(["hooks", "runner"]).stdin(Stdio::null()).stdout(log).stderr(log2);
    // Variables git sets for its hooks that would point a later git command
    // at this moment's index or directory.
    for var in ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_EXEC_PATH"] {
        cmd.env_remove(var);
    }
    #[cfg(unix)]
    {
        // Its own process group: no terminal signal (Ctrl-C, hang-up of the
        // foreground group) aimed at the git command reaches it.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let child = cmd.spawn().map_err(|error| HookError::Spawn { exe: exe.clone(), error })?;
    // Not waited for: it outlives us and is reparented.
    Ok(Triggered::Spawned(child.id()))
}

/// Moves the log aside when it is over [`MAX_LOG_BYTES`].
fn bound_log(path: &Path) {
    if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let mut old = path.as_os_str().to_os_string();
        old.push(".1");
        let _ = std::fs::rename(path, PathBuf::from(old));
    }
}

/// Appends a line to `hook.log` (best effort).
pub fn log(dir: &Path, msg: &str) {
    let path = dir.join(LOG_FILE);
    bound_log(&path);
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(&path) {
        let _ = writeln!(f, "{} [{}] {msg}", utc(crate::stores::state::now_secs()), std::process::id());
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

// ---------------------------------------------------------------- runner

/// Whether a runner holds `hook.lock` right now.
pub fn runner_active(dir: &Path) -> bool {
    FileLock::is_held(&dir.join(RUNNER_LOCK))
}

/// One index run started by a hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookRun {
    pub started_at: u64,
    pub finished_at: u64,
    /// The hook whose request started it (the last one, when several coalesced).
    pub requested_by: String,
    /// The commit it brought the index to (or was heading for, when it failed).
    pub commit: Option<String>,
    /// indexed, up_to_date, empty, failed.
    pub outcome: String,
    pub error: Option<String>,
    pub took_ms: f64,
}

/// `hook_state.json`: what the hook runners have done in this index dir.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookRunState {
    /// Index runs started by hooks, ever.
    pub runs: u64,
    /// Runner processes started, ever.
    pub runners: u64,
    pub last_run: Option<HookRun>,
}

impl HookRunState {
    pub fn load(dir: &Path) -> Option<HookRunState> {
        let bytes = std::fs::read(dir.join(HOOK_STATE_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn save(&self, dir: &Path) {
        if let Ok(json) = serde_json::to_vec_pretty(self) {
            let _ = crate::stores::fs::write_atomic(&dir.join(HOOK_STATE_FILE), &json, None);
        }
    }
}

/// Waits until the request marker has been quiet for [`QUIET`] (or for
/// [`MAX_DELAY`] in all), so that a burst of hooks becomes one run. `false`
/// when there is no request.
fn settle(marker: &Path) -> bool {
    let start = Instant::now();
    loop {
        let Ok(meta) = std::fs::metadata(marker) else { return false };
        let age = meta.modified().ok().and_then(|m| SystemTime::now().duration_since(m).ok()).unwrap_or(QUIET);
        if age >= QUIET || start.elapsed() >= MAX_DELAY {
            return true;
        }
        std::thread::sleep((QUIET - age).clamp(Duration::from_millis(10), QUIET));
    }
}

/// Takes the request: `Some(the hook that wrote it last)`, or `None` when
/// there is none. A marker that cannot be removed is an error (the runner
/// would otherwise see it forever).
fn take_request(marker: &Path) -> Result<Option<String>> {
    let who = std::fs::read_to_string(marker).unwrap_or_default();
    match std::fs::remove_file(marker) {
        Ok(()) => Ok(Some(if who.trim().is_empty() { "hook".to_string() } else { who.trim().to_string() })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("cannot remove", marker)(e).into()),
    }
}

/// The background runner's loop (`git rag hooks runner`): calls `one_run`
/// (with the hook that asked) until no request is left. Returns how many
/// runs it made. The caller does the run and records it ([`record_run`]).
pub fn run_runner(index_dir: &Path, mut one_run: impl FnMut(&str)) -> Result<u64> {
    std::fs::create_dir_all(index_dir).map_err(io("cannot create the index directory", index_dir))?;
    let marker = index_dir.join(REQUEST_FILE);
    let mut runs = 0u64;
    let mut counted = false;
    loop {
        let lock_path = index_dir.join(RUNNER_LOCK);
        let Some(lock) = FileLock::try_exclusive(&lock_path).map_err(io("cannot lock", &lock_path))? else {
            // Another runner holds it and will see the request.
            return Ok(runs);
        };
        lock.record_pid();
        if !counted {
            counted = true;
            let mut st = HookRunState::load(index_dir).unwrap_or_default();
            st.runners += 1;
            st.save(index_dir);
        }
        while settle(&marker) {
            let Some(requested_by) = take_request(&marker)? else { break };
            runs += 1;
            one_run(&requested_by);
        }
        drop(lock);
        // A request written while we were letting go: take it up again,
        // unless a new runner already has.
        if !exists(&marker) {
            return Ok(runs);
        }
    }
}

/// Records a finished run in `hook_state.json`.
pub fn record_run(index_dir: &Path, run: HookRun) {
    let mut st = HookRunState::load(index_dir).unwrap_or_default();
    st.runs += 1;
    st.last_run = Some(run);
    st.save(index_dir);
}

/// The number the next run will have in `hook_state.json`.
pub fn next_run_number(index_dir: &Path) -> u64 {
    HookRunState::load(index_dir).unwrap_or_default().runs + 1
}

// ---------------------------------------------------------------- status

/// The hook runner's side of `git rag status`.
#[derive(Debug, Clone, Serialize)]
pub struct RunnerStatus {
    /// A runner is active (waiting for a burst to settle, or indexing).
    pub running: bool,
    /// Its process id, when running.
    pub pid: Option<u32>,
    /// A request not yet taken by a runner.
    pub pending: bool,
    /// Index runs started by hooks, ever.
    pub runs: u64,
    pub last_run: Option<HookRun>,
    pub log: PathBuf,
}

/// What the hook runners are doing and did; `None` when no hook ever ran here.
pub fn runner_status(index_dir: &Path) -> Option<RunnerStatus> {
    let state = HookRunState::load(index_dir);
    let running = runner_active(index_dir);
    let pending = exists(&index_dir.join(REQUEST_FILE));
    if state.is_none() && !running && !pending {
        return None;
    }
    let pid = running.then(|| FileLock::holder_pid(&index_dir.join(RUNNER_LOCK))).flatten();
    let state = state.unwrap_or_default();
    Some(RunnerStatus { running, pid, pending, runs: state.runs, last_run: state.last_run, log: index_dir.join(LOG_FILE) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_ours_and_differ_only_by_name() {
        let (_, first) = HOOKS[0];
        for (name, script) in HOOKS {
            assert!(script.starts_with("#!/bin/sh\n"), "{name}");
            assert!(script.lines().nth(1).is_some_and(|l| l.contains(MARKER)), "{name}");
            assert!(script.contains(&format!("git-rag hooks run {name} ")), "{name}");
            assert_eq!(script.replace(name, "H"), first.replace(HOOKS[0].0, "H"));
        }
    }

    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn install_chains_and_uninstall_restores() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("hooks");
        std::fs::create_dir_all(&dir).unwrap();
        let user = b"#!/bin/sh\necho mine\n";
        std::fs::write(dir.join("post-merge"), user).unwrap();
        std::fs::set_permissions(dir.join("post-merge"), std::fs::Permissions::from_mode(0o740)).unwrap();
        std::os::unix::fs::symlink("/nowhere", dir.join("post-rewrite")).unwrap();

        let first = install_in(&dir).unwrap();
        let acts: Vec<_> = first.hooks.iter().map(|h| (h.name.as_str(), h.action.as_str())).collect();
        assert_eq!(acts, [("post-commit", "installed"), ("post-merge", "chained"), ("post-checkout", "installed"), ("post-rewrite", "chained")]);
        let again = install_in(&dir).unwrap();
        assert!(again.hooks.iter().all(|h| h.action == HookActionKind::Unchanged), "{again:?}");
        assert!(!exists(&dir.join("post-merge.git-rag-orig.git-rag-orig")));
        let st = status_in(&dir);
        let states: Vec<_> = st.hooks.iter().map(|h| h.state).collect();
        assert_eq!(states, [HookState::Installed, HookState::Chained, HookState::Installed, HookState::Chained]);
        assert_eq!(mode(&dir.join("post-commit")), 0o755);

        // An outdated script of ours is updated, not chained.
        std::fs::write(dir.join("post-commit"), "#!/bin/sh\n# git-rag-managed-hook (old)\n").unwrap();
        assert!(status_in(&dir).hooks[0].outdated);
        assert_eq!(install_in(&dir).unwrap().hooks[0].action, HookActionKind::Updated);

        let un = uninstall_in(&dir).unwrap();
        let acts: Vec<_> = un.hooks.iter().map(|h| h.action.as_str()).collect();
        assert_eq!(acts, ["removed", "restored", "removed", "restored"]);
        assert_eq!(std::fs::read(dir.join("post-merge")).unwrap(), user);
        assert_eq!(mode(&dir.join("post-merge")), 0o740);
        assert_eq!(std::fs::read_link(dir.join("post-rewrite")).unwrap(), PathBuf::from("/nowhere"));
        assert!(!exists(&dir.join("post-commit")));
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(uninstall_in(&dir).unwrap().hooks.iter().all(|h| h.action != HookActionKind::Removed && h.action != HookActionKind::Restored));
    }

    #[test]
    fn foreign_hook_over_a_saved_original_is_a_conflict() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("post-commit"), "#!/bin/sh\necho a\n").unwrap();
        install_in(dir).unwrap();
        std::fs::write(dir.join("post-commit"), "#!/bin/sh\necho b\n").unwrap();
        let r = install_in(dir).unwrap();
        assert!(r.has_conflicts());
        assert_eq!(std::fs::read_to_string(dir.join("post-commit")).unwrap(), "#!/bin/sh\necho b\n");
        assert_eq!(std::fs::read_to_string(dir.join("post-commit.git-rag-orig")).unwrap(), "#!/bin/sh\necho a\n");
        assert_eq!(status_in(dir).hooks[0].state, HookState::Foreign);
    }

    #[test]
    fn request_marker_and_runner_lock() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert!(runner_status(dir).is_none());
        let lock = FileLock::try_exclusive(&dir.join(RUNNER_LOCK)).unwrap().unwrap();
        lock.record_pid();
        assert!(runner_active(dir));
        assert!(FileLock::try_exclusive(&dir.join(RUNNER_LOCK)).unwrap().is_none());
        let st = runner_status(dir).unwrap();
        assert!(st.running);
        assert_eq!(st.pid, Some(std::process::id()));
        drop(lock);
        assert!(crate::stores::fs::free_within(&dir.join(RUNNER_LOCK), Duration::from_secs(10)));
        assert!(!runner_active(dir));
        let marker = dir.join(REQUEST_FILE);
        assert!(!settle(&marker));
        std::fs::write(&marker, "post-commit").unwrap();
        assert!(settle(&marker));
        assert_eq!(take_request(&marker).unwrap().as_deref(), Some("post-commit"));
        assert_eq!(take_request(&marker).unwrap(), None);
    }

    #[test]
    fn log_is_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOG_FILE);
        std::fs::write(&path, vec![b'x'; MAX_LOG_BYTES as usize + 1]).unwrap();
        log(tmp.path(), "hello");
        assert!(std::fs::metadata(&path).unwrap().len() < 200);
        assert!(tmp.path().join("hook.log.1").exists());
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_763_866_861), "2025-11-23T03:01:01Z");
    }
}

//! The work tree's untracked files without reading every folder on every
//! query: git's untracked cache, kept beside the index
//! (`worktree-untracked.bin`). Reading the ~5,400 folders of the Linux
//! kernel was ~100 ms of CPU in every `git rag query`; a `stat` of each is
//! a tenth of that.
//!
//! A folder's modification time moves when an entry is added to it,
//! removed or renamed, so a folder whose time is the recorded one holds the
//! recorded untracked files; only its subfolders are visited. A folder is
//! read again when its time moved, when it changed within [`SETTLE`] of the
//! walk that recorded it (a second change in the same clock tick would not
//! move it), or when the index's tracked files in it are not the recorded
//! ones (a `git rm --cached` makes a file untracked without touching the
//! folder).
//!
//! Invariant: the listing is the one a walk of every folder gives — files
//! that are neither tracked nor ignored, nested repositories and ignored
//! folders left out (`tests` compare it with gix's walk after each step of
//! a sequence of edits). What decides ignoring without moving a folder's
//! time throws the whole listing away: a `.gitignore` seen in the walk
//! that changed or appeared, `info/exclude`, the global excludes file.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use gix::bstr::ByteSlice;

const FILE: &str = "worktree-untracked.bin";
const VERSION: u32 = 1;

/// A folder changed this recently is read again by the next walk.
pub(super) const SETTLE: Duration = Duration::from_secs(1);

/// What `stat` says of a file or folder: modification time and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stamp {
    secs: u64,
    nanos: u32,
    size: u64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        let since = meta.modified().ok().and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()).unwrap_or_default();
        Stamp { secs: since.as_secs(), nanos: since.subsec_nanos(), size: meta.len() }
    }

    fn at(path: &Path) -> Option<Stamp> {
        std::fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
    }

    fn time(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::new(self.secs, self.nanos)
    }
}

/// One folder as the last walk read it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Folder {
    stamp: Stamp,
    /// Changed long enough before the walk for its time to be trusted.
    settled: bool,
    /// Digest of the names the index tracks directly in it.
    tracked: u64,
    /// Untracked, not ignored files directly in it (names).
    untracked: Vec<String>,
    /// Subfolders to visit (names): not ignored, not nested repositories.
    subfolders: Vec<String>,
}

/// The listing kept between processes.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Listing {
    version: u32,
    workdir: PathBuf,
    /// Exclude files outside the tree (`info/exclude`, the global one).
    globals: Vec<(PathBuf, Option<Stamp>)>,
    /// The checksum of the index file the folders' tracked digests were
    /// checked against: while it holds, they are not computed again.
    index: Option<String>,
    /// Every `.gitignore` of the walked folders (relative path), and
    /// whether it changed long enough before the walk for its time to be trusted.
    ignores: BTreeMap<String, (Stamp, bool)>,
    /// By folder path relative to the work tree (`""`: its root).
    folders: BTreeMap<String, Folder>,
}

impl Listing {
    fn load(path: &Path, workdir: &Path, globals: &[(PathBuf, Option<Stamp>)]) -> Option<Listing> {
        let bytes = std::fs::read(path).ok()?;
        let (listing, _): (Listing, _) = bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).ok()?;
        let ignores_hold = || listing.ignores.iter().all(|(p, (stamp, settled))| *settled && Stamp::at(&workdir.join(p)) == Some(*stamp));
        (listing.version == VERSION && listing.workdir == workdir && listing.globals == globals && ignores_hold()).then_some(listing)
    }

    /// Writes the listing beside the index, whole or not at all (it is a cache).
    fn save(&self, path: &Path) {
        let Ok(bytes) = bincode::serde::encode_to_vec(self, bincode::config::standard()) else { return };
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The exclude files outside the tree and their stamps: `info/exclude` of
/// the common directory, and `core.excludesFile` (else git's default).
fn global_excludes(repo: &gix::Repository) -> Vec<(PathBuf, Option<Stamp>)> {
    let mut files = vec![repo.common_dir().join("info").join("exclude")];
    let configured = repo.config_snapshot().trusted_path("core.excludesFile").ok().flatten();
    let home = crate::env::home().map(PathBuf::from);
    let xdg = crate::env::xdg_config_home().map(PathBuf::from).or_else(|| home.map(|h| h.join(".config")));
    files.extend(configured.or_else(|| xdg.map(|x| x.join("git").join("ignore"))));
    files
        .into_iter()
        .map(|p| {
            let stamp = Stamp::at(&p);
            (p, stamp)
        })
        .collect()
}

/// Digest of the names the index tracks directly in `folder` (`""`: the root).
fn tracked_digest(index: &gix::index::State, folder: &str) -> u64 {
    let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
    let Some(entries) = index.prefixed_entries(prefix.as_bytes().as_bstr()) else { return 0 };
    let mut digest = 0u64;
    for entry in entries {
        let name = &entry.path(index)[prefix.len()..];
        if !name.contains(&b'/') {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            name.hash(&mut h);
            // Order-free: entries of a folder are not contiguous in the index.
            digest ^= h.finish();
        }
    }
    digest
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// The untracked files of the work tree at `workdir` (paths relative to
/// it), walking only the folders that changed since the listing in
/// `cache_dir` was written, and writing the new listing there.
pub(super) fn untracked_files(repo: &gix::Repository, index: &gix::index::File, workdir: &Path, cache_dir: &Path) -> Result<BTreeSet<String>, String> {
    untracked_counted(repo, index, workdir, cache_dir).map(|(files, _)| files)
}

/// [`untracked_files`], and how many folders were read (not taken from the listing).
fn untracked_counted(repo: &gix::Repository, index: &gix::index::File, workdir: &Path, cache_dir: &Path) -> Result<(BTreeSet<String>, usize), String> {
    let cache = cache_dir.join(FILE);
    let globals = global_excludes(repo);
    let checksum = index.checksum().map(|c| c.to_string());
    let old = Listing::load(&cache, workdir, &globals);
    let index_held = old.as_ref().is_some_and(|l| l.index.is_some() && l.index == checksum);
    let mut walk = Walk { repo, index, workdir, excludes: None, started: SystemTime::now(), index_held, new_ignore: false, read: 0 };
    let mut listing = Listing { version: VERSION, workdir: workdir.to_path_buf(), globals, index: checksum, ..Listing::default() };
    let mut out = walk.run(old.as_ref(), &mut listing)?;
    if walk.new_ignore && old.is_some() {
        // A `.gitignore` appeared: folders kept from the old listing were
        // classified without it.
        listing.ignores.clear();
        listing.folders.clear();
        out = walk.run(None, &mut listing)?;
    }
    if walk.read > 0 || !index_held {
        listing.save(&cache);
    }
    Ok((out, walk.read))
}

struct Walk<'a> {
    repo: &'a gix::Repository,
    index: &'a gix::index::File,
    workdir: &'a Path,
    /// The `.gitignore` rules, built when a folder must be read.
    excludes: Option<gix::AttributeStack<'a>>,
    started: SystemTime,
    /// The index is the one the old listing checked: its folders' tracked
    /// names need no check.
    index_held: bool,
    /// A folder read again holds a `.gitignore` the old listing did not know.
    new_ignore: bool,
    /// Folders read (not taken from the listing).
    read: usize,
}

impl Walk<'_> {
    fn run(&mut self, old: Option<&Listing>, listing: &mut Listing) -> Result<BTreeSet<String>, String> {
        let mut out = BTreeSet::new();
        let mut stack = vec![String::new()];
        while let Some(folder) = stack.pop() {
            let Ok(meta) = std::fs::symlink_metadata(self.workdir.join(&folder)) else { continue };
            if !meta.is_dir() {
                continue;
            }
            let stamp = Stamp::of(&meta);
            let kept = old
                .and_then(|l| l.folders.get(&folder))
                .filter(|f| f.settled && f.stamp == stamp && (self.index_held || f.tracked == tracked_digest(self.index, &folder)));
            let entry = match kept {
                Some(f) => {
                    let ignore = join(&folder, ".gitignore");
                    if let Some(found) = old.and_then(|l| l.ignores.get(&ignore)) {
                        listing.ignores.insert(ignore, *found);
                    }
                    f.clone()
                }
                None => self.read(&folder, stamp, old, listing)?,
            };
            out.extend(entry.untracked.iter().map(|name| join(&folder, name)));
            stack.extend(entry.subfolders.iter().map(|name| join(&folder, name)));
            listing.folders.insert(folder, entry);
        }
        Ok(out)
    }

    /// Reads `folder` and classifies its entries.
    fn read(&mut self, folder: &str, stamp: Stamp, old: Option<&Listing>, listing: &mut Listing) -> Result<Folder, String> {
        self.read += 1;
        let dir = self.workdir.join(folder);
        let mut entry = Folder {
            stamp,
            settled: stamp.time() + SETTLE < self.started,
            tracked: tracked_digest(self.index, folder),
            untracked: Vec::new(),
            subfolders: Vec::new(),
        };
        let Ok(read) = std::fs::read_dir(&dir) else { return Ok(entry) };
        for item in read.flatten() {
            let Some(name) = item.file_name().to_str().map(str::to_string) else { continue };
            if name == ".git" {
                continue;
            }
            let path = join(folder, &name);
            let is_dir = item.file_type().is_ok_and(|t| t.is_dir());
            if is_dir {
                // A nested repository is not the tree's to list.
                if dir.join(&name).join(".git").symlink_metadata().is_err() && !self.ignored(&path, true)? {
                    entry.subfolders.push(name);
                }
                continue;
            }
            if name == ".gitignore" {
                if let Some(s) = Stamp::at(&dir.join(&name)) {
                    self.new_ignore |= !old.is_some_and(|l| l.ignores.contains_key(&path));
                    listing.ignores.insert(path.clone(), (s, s.time() + SETTLE < self.started));
                }
            }
            if self.index.entry_by_path(path.as_bytes().as_bstr()).is_none() && !self.ignored(&path, false)? {
                entry.untracked.push(name);
            }
        }
        Ok(entry)
    }

    fn ignored(&mut self, path: &str, is_dir: bool) -> Result<bool, String> {
        if self.excludes.is_none() {
            let source = gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped;
            self.excludes = Some(self.repo.excludes(self.index, None, source).map_err(|e| e.to_string())?);
        }
        let Some(excludes) = self.excludes.as_mut() else { return Ok(false) };
        let mode = if is_dir { gix::index::entry::Mode::DIR } else { gix::index::entry::Mode::FILE };
        Ok(excludes.at_entry(path, Some(mode)).map_err(|e| e.to_string())?.is_excluded())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// Gives every file and folder changed since the last call a time of
    /// its own, long past: a change then always moves its folder's time (two
    /// steps of a test can fall in one clock tick), and every time is settled.
    fn date_changes(root: &Path, next: &mut u64) {
        let recent = SystemTime::now() - Duration::from_secs(3600);
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for item in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                let path = item.path();
                if item.file_name() == ".git" {
                    continue;
                }
                if item.file_type().expect("type").is_dir() {
                    stack.push(path.clone());
                }
                if std::fs::symlink_metadata(&path).and_then(|m| m.modified()).is_ok_and(|t| t > recent) {
                    *next += 1;
                    let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000 + *next);
                    std::fs::File::open(&path).and_then(|f| f.set_modified(time)).expect("set time");
                }
            }
        }
        if std::fs::metadata(root).and_then(|m| m.modified()).is_ok_and(|t| t > recent) {
            *next += 1;
            let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000 + *next);
            std::fs::File::open(root).and_then(|f| f.set_modified(time)).expect("set time");
        }
    }

    /// What git lists as untracked, nested repositories left out.
    fn git_untracked(root: &Path) -> BTreeSet<String> {
        git(root, &["ls-files", "--others", "--exclude-standard"]).lines().filter(|l| !l.ends_with('/')).map(str::to_string).collect()
    }

    fn listed(root: &Path, cache: &Path) -> (BTreeSet<String>, usize) {
        let repo = gix::open(root).expect("open");
        let index = repo.index_or_empty().expect("index");
        untracked_counted(&repo, &index, root, cache).expect("walk")
    }

    /// One change to the work tree, made to a root.
    type Step = Box<dyn Fn(&Path)>;

    #[test]
    fn the_kept_listing_equals_a_walk_of_every_folder_after_each_edit() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (root, cache) = (tmp.path().join("repo"), tmp.path().join("index"));
        std::fs::create_dir_all(&cache).expect("mkdir");
        std::fs::create_dir_all(&root).expect("mkdir");
        git(&root, &["init", "-q"]);
        for rel in ["a/one.rs", "a/b/two.rs", "c/three.rs", "c/t.txt", "top.md"] {
            write(&root, rel, "tracked\n");
        }
        write(&root, ".gitignore", "*.log\nbuild/\n");
        git(&root, &["add", "."]);
        let mut next = 0;
        let steps: Vec<(&str, Step)> = vec![
            ("nothing yet", Box::new(|_| {})),
            ("a file in a tracked folder", Box::new(|r| write(r, "a/b/x.txt", "new\n"))),
            ("a new folder", Box::new(|r| write(r, "a/new/deep/y.txt", "new\n"))),
            (
                "ignored files and folders",
                Box::new(|r| {
                    write(r, "a/z.log", "log\n");
                    write(r, "build/out.txt", "out\n");
                }),
            ),
            (
                "an untracked file added to the index",
                Box::new(|r| {
                    git(r, &["add", "a/b/x.txt"]);
                }),
            ),
            (
                "a tracked file removed from the index only",
                Box::new(|r| {
                    git(r, &["rm", "-q", "--cached", "c/t.txt"]);
                }),
            ),
            ("an ignore rule dropped", Box::new(|r| write(r, ".gitignore", "build/\n"))),
            ("a new .gitignore below", Box::new(|r| write(r, "a/.gitignore", "new/\n"))),
            ("an untracked folder removed", Box::new(|r| std::fs::remove_dir_all(r.join("build")).expect("rm"))),
            (
                "a nested repository",
                Box::new(|r| {
                    write(r, "d/nested/file.txt", "nested\n");
                    git(&r.join("d/nested"), &["init", "-q"]);
                }),
            ),
            ("a file renamed", Box::new(|r| std::fs::rename(r.join("a/new/deep/y.txt"), r.join("a/new/deep/w.txt")).expect("rename"))),
        ];
        for (what, step) in steps {
            step(&root);
            date_changes(&root, &mut next);
            let (found, _) = listed(&root, &cache);
            assert_eq!(found, git_untracked(&root), "after {what}");
            let (again, read) = listed(&root, &cache);
            assert_eq!(again, found, "a second walk after {what}");
            assert_eq!(read, 0, "a second walk after {what} reads no folder");
        }
        // An edit of a file's content moves no folder: nothing is read.
        write(&root, "a/b/x.txt", "edited\n");
        assert_eq!(listed(&root, &cache).1, 0);
    }

    #[test]
    fn a_folder_changed_just_before_the_walk_is_read_again() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (root, cache) = (tmp.path().join("repo"), tmp.path().join("index"));
        std::fs::create_dir_all(&cache).expect("mkdir");
        write(&root, "a/one.rs", "tracked\n");
        git(&root, &["init", "-q"]);
        git(&root, &["add", "."]);
        write(&root, "a/new.txt", "new\n");
        let (found, _) = listed(&root, &cache);
        assert!(found.contains("a/new.txt"));
        // Its time may not move for a second change in the same tick.
        let (_, read) = listed(&root, &cache);
        assert!(read >= 2, "the root and `a` are read again while their times are fresh, read {read}");
    }
}

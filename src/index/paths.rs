//! Which paths are indexed: `git config rag.include` / `rag.exclude` (globs,
//! several values each) and the `.gitattributes` files of the indexed
//! commit (`linguist-generated`, `linguist-vendored`, and `-diff` / `binary`,
//! which mark a file as not text). Read from the commit, like everything
//! else, never from the work tree.
//!
//! Patterns follow gitignore's shape: one without a `/` matches a name at any
//! depth (`*.min.js`), one with a `/` is anchored (at the repository root
//! for the settings, at the `.gitattributes` file's directory for
//! attributes), a trailing `/` means everything under a directory (`docs/`).

use std::collections::BTreeMap;

use std::collections::BTreeSet;

use gix::ObjectId;
use globset::{GlobBuilder, GlobMatcher};
use serde::Serialize;

use super::Plan;
use crate::git::{BlobReader, EntryKind, Repo, TreeFile};
use crate::stores::state::IndexState;

/// The user's path settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathRules {
    /// When not empty, only paths matching one of these are indexed.
    pub include: Vec<String>,
    /// Paths matching one of these are not indexed (wins over `include`).
    pub exclude: Vec<String>,
}

/// Why a path is not indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Excluded {
    /// `rag.include` / `rag.exclude`.
    Settings,
    /// `linguist-generated` in `.gitattributes`.
    Generated,
    /// `linguist-vendored` in `.gitattributes`.
    Vendored,
    /// `-diff` or `binary` in `.gitattributes`.
    NotText,
}

#[derive(Debug, thiserror::Error)]
pub enum PathRulesError {
    #[error("git config rag.{key}: `{pattern}` is not a glob: {message}")]
    BadGlob { key: &'static str, pattern: String, message: String },
}

/// One attribute line's pattern and what it sets (`Some(true)`), unsets
/// (`Some(false)`) or leaves alone (`None`).
struct AttributeLine {
    pattern: GlobMatcher,
    generated: Option<bool>,
    vendored: Option<bool>,
    not_text: Option<bool>,
}

/// The decision for every path of one commit.
pub struct PathFilter {
    include: Vec<GlobMatcher>,
    exclude: Vec<GlobMatcher>,
    /// In git's order of precedence: shallower files first, lines in order;
    /// the last line that says something about an attribute decides it.
    attributes: Vec<AttributeLine>,
}

/// Compiles a gitignore-shaped pattern relative to `base` (`""` or `dir/`).
fn compile(pattern: &str, base: &str) -> Result<GlobMatcher, globset::Error> {
    let p = pattern.strip_prefix('/').unwrap_or(pattern);
    let anchored = pattern.starts_with('/') || p.trim_end_matches('/').contains('/');
    let mut glob = if anchored { format!("{base}{p}") } else { format!("{base}**/{p}") };
    if glob.ends_with('/') {
        glob.push_str("**");
    }
    Ok(GlobBuilder::new(&glob).literal_separator(true).build()?.compile_matcher())
}

fn compile_all(patterns: &[String], key: &'static str) -> Result<Vec<GlobMatcher>, PathRulesError> {
    patterns.iter().map(|p| compile(p.trim(), "").map_err(|e| PathRulesError::BadGlob { key, pattern: p.clone(), message: e.to_string() })).collect()
}

/// The attribute lines of one `.gitattributes` file (at `dir/`, or `""`).
/// Lines that do not parse as patterns are left out, as git does.
fn attribute_lines(dir: &str, text: &str) -> Vec<AttributeLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let Some(pattern) = parts.next() else { continue };
        let (mut generated, mut vendored, mut not_text) = (None, None, None);
        for attr in parts {
            let (name, value) = match attr.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (attr, None),
            };
            let (name, set) = match name.strip_prefix('-') {
                Some(n) => (n, false),
                None => (name.strip_prefix('!').unwrap_or(name), !name.starts_with('!') && value.is_none_or(|v| v != "false")),
            };
            match name {
                "linguist-generated" => generated = Some(set),
                "linguist-vendored" => vendored = Some(set),
                // `-diff` marks a file git shows as binary; `binary` is `-diff -merge -text`.
                "diff" => not_text = Some(!set),
                "binary" => not_text = Some(set),
                _ => {}
            }
        }
        if generated.is_none() && vendored.is_none() && not_text.is_none() {
            continue;
        }
        if let Ok(pattern) = compile(pattern, dir) {
            out.push(AttributeLine { pattern, generated, vendored, not_text });
        }
    }
    out
}

impl PathFilter {
    /// `attributes`: the commit's `.gitattributes` files, by path, with their text.
    pub fn new(rules: &PathRules, attributes: &BTreeMap<String, String>) -> Result<PathFilter, PathRulesError> {
        let mut files: Vec<(&String, &String)> = attributes.iter().collect();
        files.sort_by_key(|(path, _)| (path.matches('/').count(), path.as_str()));
        let mut lines = Vec::new();
        for (path, text) in files {
            let dir = path.strip_suffix(".gitattributes").unwrap_or_default();
            lines.extend(attribute_lines(dir, text));
        }
        Ok(PathFilter { include: compile_all(&rules.include, "include")?, exclude: compile_all(&rules.exclude, "exclude")?, attributes: lines })
    }

    /// `None` when `path` is indexed, else why not.
    pub fn excluded(&self, path: &str) -> Option<Excluded> {
        if self.exclude.iter().any(|g| g.is_match(path)) || (!self.include.is_empty() && !self.include.iter().any(|g| g.is_match(path))) {
            return Some(Excluded::Settings);
        }
        let (mut generated, mut vendored, mut not_text) = (false, false, false);
        for line in self.attributes.iter().filter(|l| l.pattern.is_match(path)) {
            generated = line.generated.unwrap_or(generated);
            vendored = line.vendored.unwrap_or(vendored);
            not_text = line.not_text.unwrap_or(not_text);
        }
        if generated {
            Some(Excluded::Generated)
        } else if vendored {
            Some(Excluded::Vendored)
        } else if not_text {
            Some(Excluded::NotText)
        } else {
            None
        }
    }
}

/// Whether `path` is a `.gitattributes` file.
pub fn is_attributes_file(path: &str) -> bool {
    path == ".gitattributes" || path.ends_with("/.gitattributes")
}

/// What the path decisions depend on (the settings, and the blob of each
/// `.gitattributes` file), as a short hash stored in the index state: when
/// it changes, the paths whose decision flipped are re-indexed. Empty when
/// nothing decides (no settings, no attribute files).
pub fn fingerprint(rules: &PathRules, attributes: &BTreeMap<String, String>) -> String {
    if rules == &PathRules::default() && attributes.is_empty() {
        return String::new();
    }
    let mut text = String::new();
    for (key, values) in [("include", &rules.include), ("exclude", &rules.exclude)] {
        for v in values {
            text.push_str(&format!("{key}\0{v}\0"));
        }
    }
    for (path, blob) in attributes {
        text.push_str(&format!("attr\0{path}\0{blob}\0"));
    }
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

/// The filter of a whole tree (`files`: every entry of one commit), for
/// runs that plan by blob ids (`--ci`): its `.gitattributes` files read from it.
pub(super) fn filter_of_tree(repo: &Repo, files: &[TreeFile], rules: &PathRules) -> Result<PathFilter, PathRulesError> {
    let reader = BlobReader::new(repo);
    let texts: BTreeMap<String, String> = files
        .iter()
        .filter(|f| is_attributes_file(&f.path) && f.kind == EntryKind::Blob)
        .map(|f| (f.path.clone(), reader.read(&f.id).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()))
        .collect();
    PathFilter::new(rules, &texts)
}

/// What [`apply`] decided for a run.
pub(super) struct Decided {
    pub fingerprint: String,
    /// The target's `.gitattributes` files: path → blob id.
    pub attributes: BTreeMap<String, String>,
    /// Files of the plan left out by the rules.
    pub excluded: usize,
}

/// Whether the rules differ from those the previous index was made with
/// (`attributes` unchanged: the commit is the same).
pub(super) fn changed_since(previous: &IndexState, rules: &PathRules) -> bool {
    fingerprint(rules, &previous.attributes) != previous.path_rules
}

/// Applies the rules to a plan: drops the files they exclude (their old
/// entries stay cleared), and when the rules changed since the previous
/// index, adds the paths whose decision flipped (newly included: indexed;
/// newly excluded: cleared). The attribute files come from the plan (a full
/// plan lists the whole tree; an incremental one updates the previous set).
pub(super) fn apply(repo: &Repo, plan: &mut Plan, previous: Option<&IndexState>, rules: &PathRules, target: &ObjectId) -> super::Result<Decided> {
    let mut attributes: BTreeMap<String, String> = match (plan.full, previous) {
        (false, Some(prev)) => prev.attributes.clone(),
        _ => BTreeMap::new(),
    };
    attributes.retain(|path, _| !plan.clear.contains(path));
    for f in plan.index.iter().filter(|f| is_attributes_file(&f.path) && f.kind == EntryKind::Blob) {
        attributes.insert(f.path.clone(), f.id.to_string());
    }
    // An attribute file that cannot be read counts as empty; the file itself
    // stays pending like any other, and its next read changes the fingerprint.
    let reader = BlobReader::new(repo);
    let texts: BTreeMap<String, String> = attributes
        .iter()
        .map(|(path, blob)| {
            let text = ObjectId::from_hex(blob.as_bytes())
                .ok()
                .and_then(|id| reader.read(&id).ok())
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            (path.clone(), text)
        })
        .collect();
    let filter = PathFilter::new(rules, &texts)?;
    let fingerprint = fingerprint(rules, &attributes);
    if let Some(prev) = previous.filter(|p| !plan.full && p.path_rules != fingerprint) {
        let queued: BTreeSet<String> = plan.index.iter().map(|f| f.path.clone()).collect();
        for f in repo.list_files(target)? {
            let was = prev.files.contains_key(&f.path) || prev.pending.contains_key(&f.path);
            let now = filter.excluded(&f.path).is_none();
            if now && !was && !queued.contains(&f.path) {
                plan.clear.insert(f.path.clone());
                plan.index.push(f);
            } else if !now && was {
                plan.clear.insert(f.path.clone());
            }
        }
    }
    let before = plan.index.len();
    plan.index.retain(|f| filter.excluded(&f.path).is_none());
    Ok(Decided { fingerprint, attributes, excluded: before - plan.index.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(include: &[&str], exclude: &[&str], attrs: &[(&str, &str)]) -> PathFilter {
        let rules = PathRules { include: include.iter().map(|s| s.to_string()).collect(), exclude: exclude.iter().map(|s| s.to_string()).collect() };
        let attributes = attrs.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        PathFilter::new(&rules, &attributes).expect("valid")
    }

    #[test]
    fn settings_include_and_exclude_with_gitignore_shapes() {
        let f = filter(&["src/", "*.md"], &["*.min.js", "src/gen/**"], &[]);
        assert_eq!(f.excluded("src/a/b.rs"), None);
        assert_eq!(f.excluded("docs/guide.md"), None);
        assert_eq!(f.excluded("tests/t.rs"), Some(Excluded::Settings));
        assert_eq!(f.excluded("src/app.min.js"), Some(Excluded::Settings));
        assert_eq!(f.excluded("src/gen/x.rs"), Some(Excluded::Settings));
        let none = filter(&[], &[], &[]);
        assert_eq!(none.excluded("anything/at/all.py"), None);
    }

    #[test]
    fn gitattributes_linguist_and_binary_marks_last_line_wins() {
        let f = filter(
            &[],
            &[],
            &[
                (".gitattributes", "# comment\nvendor/** linguist-vendored\n*.pb.go linguist-generated=true\n*.svg -diff\nvendor/keep/** -linguist-vendored\n"),
                ("web/.gitattributes", "bundle.js linguist-generated\n*.dat binary\n"),
            ],
        );
        assert_eq!(f.excluded("vendor/lib/x.go"), Some(Excluded::Vendored));
        assert_eq!(f.excluded("vendor/keep/y.go"), None);
        assert_eq!(f.excluded("api/v1/svc.pb.go"), Some(Excluded::Generated));
        assert_eq!(f.excluded("img/logo.svg"), Some(Excluded::NotText));
        assert_eq!(f.excluded("web/bundle.js"), Some(Excluded::Generated));
        assert_eq!(f.excluded("web/sub/bundle.js"), Some(Excluded::Generated));
        assert_eq!(f.excluded("bundle.js"), None, "a nested file's patterns stay under its directory");
        assert_eq!(f.excluded("web/x.dat"), Some(Excluded::NotText));
        assert_eq!(f.excluded("src/main.go"), None);
        let off = filter(&[], &[], &[(".gitattributes", "*.go linguist-generated\nmain.go linguist-generated=false\n")]);
        assert_eq!(off.excluded("main.go"), None);
        assert_eq!(off.excluded("x.go"), Some(Excluded::Generated));
    }

    #[test]
    fn a_bad_glob_names_the_setting() {
        let rules = PathRules { include: vec![], exclude: vec!["src/[".into()] };
        let err = PathFilter::new(&rules, &BTreeMap::new()).err().expect("error").to_string();
        assert!(err.contains("rag.exclude") && err.contains("src/["), "{err}");
    }
}

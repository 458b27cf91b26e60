//! Which definitions a change touches: the line diff of a file's two
//! versions (imara-diff's histogram, as git uses) mapped onto the
//! definitions each side parses. A changed line belongs to the innermost
//! definition holding it (a method, not its class); a line outside every
//! definition is the module's. A definition only one side has was added or
//! deleted, unless the other side has one of the same kind and parent whose
//! text is the same but for its name: then it was renamed.

use std::collections::{BTreeMap, HashSet};

use gix::diff::blob::{Algorithm, Diff, InternedInput};

use super::{ChangeKind, ChangedCode};
use crate::analysis::chunk::FileChunks;
use crate::analysis::comments;
use crate::analysis::kind::Kind;
use crate::analysis::parse::Symbol;

/// Two texts whose lines are this much the same (Jaccard of their trimmed
/// lines, the name replaced) are one definition renamed.
const RENAMED_SIMILARITY: f32 = 0.8;

/// Lines of each side that the diff touches (0-based), and the places in the
/// new text where lines were only removed (the index of the next line, and
/// the old side's lines removed there).
struct Touched {
    old: Vec<usize>,
    new: Vec<usize>,
    removed_at: Vec<(usize, Vec<usize>)>,
}

/// Blank lines added or removed change no definition.
fn touched(old: &str, new: &str) -> Touched {
    let input = InternedInput::new(old, new);
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let said = |lines: &[&str], i: &usize| lines.get(*i).is_some_and(|l| !l.trim().is_empty());
    let mut t = Touched { old: Vec::new(), new: Vec::new(), removed_at: Vec::new() };
    for hunk in diff.hunks() {
        let removed: Vec<usize> = (hunk.before.start as usize..hunk.before.end as usize).filter(|i| said(&old_lines, i)).collect();
        t.new.extend((hunk.after.start as usize..hunk.after.end as usize).filter(|i| said(&new_lines, i)));
        if hunk.is_pure_removal() && !removed.is_empty() {
            t.removed_at.push((hunk.after.start as usize, removed.clone()));
        }
        t.old.extend(removed);
    }
    t
}

/// The text of the lines the diff of two versions touches (blank ones left out).
pub(crate) fn touched_lines(old: &str, new: &str) -> Vec<String> {
    let t = touched(old, new);
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    t.old.iter().filter_map(|i| o.get(*i)).chain(t.new.iter().filter_map(|i| n.get(*i))).map(|l| l.to_string()).collect()
}

/// The innermost symbol whose lines (1-based, inclusive) hold every one of
/// `lines` (0-based).
fn innermost<'s>(symbols: &'s [Symbol], lines: &[usize]) -> Option<&'s Symbol> {
    symbols
        .iter()
        .filter(|s| lines.iter().all(|l| s.span.start_line <= l + 1 && *l < s.span.end_line))
        .min_by_key(|s| (s.span.end_line - s.span.start_line, s.span.start_line))
}

/// The innermost symbol whose leading doc comment (above its span) holds
/// `line` (0-based), unless `within` (the innermost symbol around the line)
/// is nested inside it.
fn documented<'s>(symbols: &'s [Symbol], line: usize, within: Option<&Symbol>) -> Option<&'s Symbol> {
    let holds = |s: &Symbol| s.doc_start.is_some_and(|(_, first)| first <= line + 1 && line + 1 < s.span.start_line);
    let inside = |s: &Symbol, outer: &Symbol| outer.span.start_line <= s.span.start_line && s.span.end_line <= outer.span.end_line;
    symbols.iter().filter(|s| holds(s) && within.is_none_or(|w| inside(s, w))).min_by_key(|s| s.span.end_line - s.chunk_start().1)
}

/// What changed in one file between its two versions (`None`: the file is
/// absent on that side). Deleted definitions carry the old side's lines.
pub(crate) fn in_file(path: &str, old: Option<(&str, &FileChunks)>, new: Option<(&str, &FileChunks)>) -> Vec<ChangedCode> {
    let whole = |change, text: &str, kind| ChangedCode::file(path, change, text.lines().count().max(1), kind);
    match (old, new) {
        (None, None) => Vec::new(),
        (None, Some((text, _))) => vec![whole(ChangeKind::Added, text, Kind::File)],
        (Some((text, chunks)), None) => {
            let mut out = vec![whole(ChangeKind::Deleted, text, Kind::File)];
            out.extend(chunks.symbols.iter().map(|s| ChangedCode::symbol(path, s, ChangeKind::Deleted)));
            out
        }
        (Some(old), Some(new)) => between(path, old, new),
    }
}

fn between(path: &str, (old_text, old): (&str, &FileChunks), (new_text, new): (&str, &FileChunks)) -> Vec<ChangedCode> {
    let t = touched(old_text, new_text);
    let olds: BTreeMap<&str, &Symbol> = old.symbols.iter().rev().map(|s| (s.qualified_name.as_str(), s)).collect();
    let news: BTreeMap<&str, &Symbol> = new.symbols.iter().rev().map(|s| (s.qualified_name.as_str(), s)).collect();
    // The definitions the changed lines fall in, on either side; lines in none are the module's.
    let old_side = Lines::of(old_text, old);
    let new_side = Lines::of(new_text, new);
    let mut touched_names: HashSet<&str> = HashSet::new();
    let mut doc_names: HashSet<&str> = HashSet::new();
    let mut comment_names: HashSet<&str> = HashSet::new();
    let mut module_lines: Vec<usize> = Vec::new();
    let mut module_touched = false;
    let mut module_comment_lines: Vec<usize> = Vec::new();
    let mut module_comment_touched = false;
    for (side, lines, on_new_side) in [(&new_side, &t.new, true), (&old_side, &t.old, false)] {
        for l in lines {
            match side.place(*l) {
                Place::Code(s) => drop(touched_names.insert(&s.qualified_name)),
                Place::Doc(s) => drop(doc_names.insert(&s.qualified_name)),
                Place::Comment(Some(s)) => drop(comment_names.insert(&s.qualified_name)),
                Place::Comment(None) if on_new_side => module_comment_lines.push(l + 1),
                Place::Comment(None) => module_comment_touched = true,
                Place::Module if on_new_side => module_lines.push(l + 1),
                Place::Module => module_touched = true,
            }
        }
    }
    for (at, removed) in &t.removed_at {
        // Lines removed between two kept lines: the definition holding both.
        let holder = (*at > 0).then(|| innermost(&new.symbols, &[at - 1, *at])).flatten();
        let only_comments = removed.iter().all(|l| old_side.is_comment(*l));
        match (holder, only_comments) {
            (Some(s), false) => drop(touched_names.insert(&s.qualified_name)),
            (Some(s), true) => drop(comment_names.insert(&s.qualified_name)),
            (None, false) => module_touched = true,
            (None, true) => module_comment_touched = true,
        }
    }
    let mut out: Vec<ChangedCode> = Vec::new();
    for s in new.symbols.iter().filter(|s| olds.contains_key(s.qualified_name.as_str()) && touched_names.contains(s.qualified_name.as_str())) {
        let before = olds[s.qualified_name.as_str()];
        let change = if before.signature.trim() != s.signature.trim() { ChangeKind::Signature } else { ChangeKind::Body };
        if !out.iter().any(|c| c.symbol.as_deref() == Some(&s.qualified_name)) {
            out.push(ChangedCode::symbol(path, s, change));
        }
    }
    for s in new.symbols.iter().filter(|s| olds.contains_key(s.qualified_name.as_str()) && doc_names.contains(s.qualified_name.as_str())) {
        if !out.iter().any(|c| c.symbol.as_deref() == Some(&s.qualified_name)) {
            out.push(ChangedCode::symbol(path, s, ChangeKind::Doc));
        }
    }
    for s in new.symbols.iter().filter(|s| olds.contains_key(s.qualified_name.as_str()) && comment_names.contains(s.qualified_name.as_str())) {
        if !out.iter().any(|c| c.symbol.as_deref() == Some(&s.qualified_name)) {
            out.push(ChangedCode::symbol(path, s, ChangeKind::Comment));
        }
    }
    let added: Vec<&Symbol> = dedup(new.symbols.iter().filter(|s| !olds.contains_key(s.qualified_name.as_str())));
    let deleted: Vec<&Symbol> = dedup(old.symbols.iter().filter(|s| !news.contains_key(s.qualified_name.as_str())));
    out.extend(renames_and_the_rest(path, (old_text, &deleted), (new_text, &added)));
    let module = |lines: &[usize], change| ChangedCode {
        path: path.to_string(),
        symbol: None,
        kind: Kind::Code,
        start_line: lines.iter().min().copied().unwrap_or(1),
        end_line: lines.iter().max().copied().unwrap_or(1),
        change,
        previous: None,
    };
    if !module_lines.is_empty() || module_touched {
        out.push(module(&module_lines, ChangeKind::Module));
    } else if !module_comment_lines.is_empty() || module_comment_touched {
        out.push(module(&module_comment_lines, ChangeKind::Comment));
    }
    out
}

/// Where a changed line belongs.
enum Place<'s> {
    /// The code of the innermost definition holding it.
    Code(&'s Symbol),
    /// A definition's leading doc comment.
    Doc(&'s Symbol),
    /// A comment inside a definition's lines, or the module's (`None`).
    Comment(Option<&'s Symbol>),
    /// The module's code.
    Module,
}

/// One side's text, definitions and comment-only lines.
struct Lines<'a> {
    text: Vec<&'a str>,
    symbols: &'a [Symbol],
    comment_only: Vec<bool>,
}

impl<'a> Lines<'a> {
    fn of(text: &'a str, chunks: &'a FileChunks) -> Lines<'a> {
        Lines { text: text.lines().collect(), symbols: &chunks.symbols, comment_only: comments::comment_only_lines(chunks.language, text.as_bytes()) }
    }

    /// A line that holds only a comment the toolchain does not read.
    fn is_comment(&self, line: usize) -> bool {
        self.comment_only.get(line).copied().unwrap_or(false) && !self.read_by_the_toolchain(line)
    }

    fn read_by_the_toolchain(&self, line: usize) -> bool {
        self.text.get(line).is_some_and(|t| comments::read_by_the_toolchain(t))
    }

    /// A line of a definition's leading doc comment is that definition's
    /// documentation (its code, where the toolchain reads it: a doctest),
    /// not its parent's code or the module's; another comment's line is a
    /// comment of the definition around it.
    fn place(&self, line: usize) -> Place<'a> {
        let within = innermost(self.symbols, &[line]);
        match (documented(self.symbols, line, within), within) {
            (Some(d), _) if self.read_by_the_toolchain(line) => Place::Code(d),
            (Some(d), _) => Place::Doc(d),
            _ if self.is_comment(line) => Place::Comment(within),
            (None, Some(s)) => Place::Code(s),
            (None, None) => Place::Module,
        }
    }
}

/// Symbols by qualified name, each once (a redefinition keeps the first).
fn dedup<'s>(symbols: impl Iterator<Item = &'s Symbol>) -> Vec<&'s Symbol> {
    let mut seen = HashSet::new();
    symbols.filter(|s| seen.insert(s.qualified_name.as_str())).collect()
}

/// Pairs each deleted definition with an added one of the same kind and
/// parent whose text is the same (but for the name); the rest are deleted
/// or added.
fn renames_and_the_rest(path: &str, (old_text, deleted): (&str, &[&Symbol]), (new_text, added): (&str, &[&Symbol])) -> Vec<ChangedCode> {
    let old_lines: Vec<&str> = old_text.lines().collect();
    let new_lines: Vec<&str> = new_text.lines().collect();
    let mut taken: HashSet<usize> = HashSet::new();
    let mut out = Vec::new();
    for d in deleted {
        let before = body_lines(&old_lines, d, &d.name);
        let partner = added
            .iter()
            .enumerate()
            .filter(|(i, a)| !taken.contains(i) && a.kind == d.kind && a.parent == d.parent)
            .find(|(_, a)| similarity(&before, &body_lines(&new_lines, a, &a.name)) >= RENAMED_SIMILARITY);
        match partner {
            Some((i, a)) => {
                taken.insert(i);
                let mut c = ChangedCode::symbol(path, a, ChangeKind::Renamed);
                c.previous = Some(d.qualified_name.clone());
                out.push(c);
            }
            None => out.push(ChangedCode::symbol(path, d, ChangeKind::Deleted)),
        }
    }
    out.extend(added.iter().enumerate().filter(|(i, _)| !taken.contains(i)).map(|(_, a)| ChangedCode::symbol(path, a, ChangeKind::Added)));
    out
}

/// A definition's trimmed lines with its own name blanked out.
fn body_lines(lines: &[&str], s: &Symbol, name: &str) -> Vec<String> {
    let (from, to) = (s.span.start_line.saturating_sub(1), s.span.end_line.min(lines.len()));
    lines.get(from..to).unwrap_or_default().iter().map(|l| l.trim().replace(name, "\u{0}")).filter(|l| !l.is_empty()).collect()
}

fn similarity(a: &[String], b: &[String]) -> f32 {
    let (sa, sb): (HashSet<&String>, HashSet<&String>) = (a.iter().collect(), b.iter().collect());
    let union = sa.union(&sb).count();
    if union == 0 {
        return 0.0;
    }
    sa.intersection(&sb).count() as f32 / union as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::chunk::{chunk_file, ChunkOptions};

    fn changes(old: &str, new: &str) -> Vec<(String, ChangeKind)> {
        let opts = ChunkOptions::default();
        let (a, b) = (chunk_file("m.py", old.as_bytes(), &opts), chunk_file("m.py", new.as_bytes(), &opts));
        in_file("m.py", Some((old, &a)), Some((new, &b))).into_iter().map(|c| (c.symbol.unwrap_or_else(|| "<module>".into()), c.change)).collect()
    }

    const BASE: &str = "import os\n\nclass A:\n    def f(self, x):\n        return x + 1\n\n    def g(self):\n        y = 2\n        return y\n\ndef h():\n    return A().f(1)\n";

    #[test]
    fn a_changed_body_is_its_innermost_definition() {
        let new = BASE.replace("return x + 1", "return x + 2");
        assert_eq!(changes(BASE, &new), vec![("A.f".into(), ChangeKind::Body)]);
        assert_eq!(changes(BASE, &format!("{BASE}\n\n")), vec![], "blank lines change nothing");
    }

    #[test]
    fn a_changed_signature_an_added_and_a_deleted_definition() {
        let new = BASE
            .replace("def f(self, x):", "def f(self, x, y=0):")
            .replace("    def g(self):\n        y = 2\n        return y\n", "    def k(self):\n        print('other')\n        return None\n");
        let got = changes(BASE, &new);
        assert!(got.contains(&("A.f".into(), ChangeKind::Signature)), "{got:?}");
        assert!(got.contains(&("A.g".into(), ChangeKind::Deleted)), "{got:?}");
        assert!(got.contains(&("A.k".into(), ChangeKind::Added)), "{got:?}");
    }

    #[test]
    fn a_renamed_definition_is_paired_with_its_old_name() {
        let new = BASE.replace("def h():", "def helper():");
        let got = changes(BASE, &new);
        assert!(got.contains(&("helper".into(), ChangeKind::Renamed)), "{got:?}");
        assert!(!got.iter().any(|(_, c)| matches!(c, ChangeKind::Added | ChangeKind::Deleted)), "{got:?}");
    }

    #[test]
    fn a_changed_doc_comment_is_its_definition_s_documentation() {
        let base = "class A:\n    def f(self, x):\n        return x + 1\n\n    # Gives two.\n    def g(self):\n        return 2\n\n\n# Calls f.\ndef h():\n    return A().f(1)\n";
        let got = changes(base, &base.replace("# Gives two.", "# Gives two, always."));
        assert_eq!(got, vec![("A.g".into(), ChangeKind::Doc)], "a method's comment, not the class's code");
        let got = changes(base, &base.replace("# Calls f.", "# Calls A.f."));
        assert_eq!(got, vec![("h".into(), ChangeKind::Doc)], "a function's comment, not the module's");
        let both = base.replace("# Gives two.", "# Gives three.").replace("return 2", "return 3");
        assert_eq!(changes(base, &both), vec![("A.g".into(), ChangeKind::Body)], "code and its comment: the code");
    }

    #[test]
    fn a_module_line_is_the_module_s() {
        let new = BASE.replace("import os\n", "import os\nimport sys\n");
        assert_eq!(changes(BASE, &new), vec![("<module>".into(), ChangeKind::Module)]);
        let removed = BASE.replace("        y = 2\n", "");
        assert_eq!(changes(BASE, &removed), vec![("A.g".into(), ChangeKind::Body)]);
    }

    fn changes_in(path: &str, old: &str, new: &str) -> Vec<(String, ChangeKind)> {
        let opts = ChunkOptions::default();
        let (a, b) = (chunk_file(path, old.as_bytes(), &opts), chunk_file(path, new.as_bytes(), &opts));
        in_file(path, Some((old, &a)), Some((new, &b))).into_iter().map(|c| (c.symbol.unwrap_or_else(|| "<module>".into()), c.change)).collect()
    }

    #[test]
    fn comments_and_docstrings_inside_a_body_are_the_definition_s_comments() {
        let base = "class A:\n    def f(self, x):\n        \"\"\"Adds one.\"\"\"\n        # the step\n        return x + 1\n";
        let got = changes(base, &base.replace("# the step", "# the step, always one"));
        assert_eq!(got, vec![("A.f".into(), ChangeKind::Comment)]);
        let got = changes(base, &base.replace("Adds one.", "Adds one to x."));
        assert_eq!(got, vec![("A.f".into(), ChangeKind::Comment)], "a docstring");
        let got = changes(base, &base.replace("        # the step\n", ""));
        assert_eq!(got, vec![("A.f".into(), ChangeKind::Comment)], "a comment removed");
        let got = changes(base, &base.replace("Adds one.", "Adds one.\n\n        >>> A().f(1)\n        2\n"));
        assert_eq!(got, vec![("A.f".into(), ChangeKind::Body)], "a doctest runs");
        let got = changes(base, &base.replace("return x + 1", "return x + 1  # one"));
        assert_eq!(got, vec![("A.f".into(), ChangeKind::Body)], "code beside a comment is code");
        let got = changes(base, &format!("# Copyright.\n\n{base}"));
        assert_eq!(got, vec![("<module>".into(), ChangeKind::Comment)], "the module's comment");
    }

    #[test]
    fn rust_comments_doctests_and_go_directives() {
        let base = "/// Saves.\npub fn save() {\n    // write it\n    write();\n}\n";
        assert_eq!(changes_in("a.rs", base, &base.replace("// write it", "// write it whole")), vec![("save".into(), ChangeKind::Comment)]);
        assert_eq!(changes_in("a.rs", base, &base.replace("/// Saves.", "/// Saves it.")), vec![("save".into(), ChangeKind::Doc)]);
        let fenced = base.replace("/// Saves.\n", "/// Saves.\n/// ```\n/// save();\n/// ```\n");
        assert_eq!(changes_in("a.rs", base, &fenced), vec![("save".into(), ChangeKind::Body)], "rustdoc runs the example");
        let go = "package a\n\nfunc F() int {\n\treturn 1\n}\n";
        let cgo = "package a\n\n// #include <stdio.h>\nimport \"C\"\n\nfunc F() int {\n\treturn 1\n}\n".to_string();
        assert_eq!(changes_in("a.go", &cgo, &cgo.replace("stdio", "stdlib")), vec![("<module>".into(), ChangeKind::Module)], "cgo compiles it");
        assert_eq!(changes_in("a.go", go, &format!("//go:build linux\n\n{go}")), vec![("<module>".into(), ChangeKind::Module)], "a build constraint");
        assert_eq!(changes_in("a.go", go, &format!("// Package a.\n{go}")), vec![("<module>".into(), ChangeKind::Comment)]);
    }
}

//! Files the question's words name: `config` -> `config.py`, `args` ->
//! `args.h`, "routing" -> `Routing/Router.php`. BM25 reads a path's words as
//! one more field of a chunk, so a file named after the question whose
//! chunks say little of it may not be among the candidates at all; these
//! files' outlines join the ranking stage's pool, and its features (a file
//! named by the question, its name parts) decide where they go.

use crate::query::base::parameters::FOLDER_PART;
use std::collections::HashSet;
use std::hash::Hasher;

use rustc_hash::FxHashMap;

use crate::analysis::role::Role;
use crate::query::question::words::is_stopword;
use crate::stores::keyword::split_identifier;

/// How many named files join the pool at most.
pub const NAMED_FILES: usize = 5;

/// The question's content words, lowercase: what a path or a name may say.
pub fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let w = w.to_lowercase();
        if w.chars().count() >= 3 && !is_stopword(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The parts of a path's file name (without extensions) and of its folder's
/// name, split as identifiers, and each name whole, lowercase:
/// `rails/generators/app_generator.rb` -> app, generator, app_generator, generators.
pub fn name_parts(path: &str) -> Vec<String> {
    let mut names = path.rsplit('/');
    let file = names.next().unwrap_or(path);
    let file = file.split('.').next().unwrap_or(file);
    let mut parts: Vec<String> = Vec::new();
    for name in [Some(file), names.next()].into_iter().flatten() {
        for part in split_identifier(name).into_iter().chain([name]) {
            let part = part.to_lowercase();
            if !part.is_empty() && !parts.contains(&part) {
                parts.push(part);
            }
        }
    }
    parts
}

/// Whether a question's word names a part of a name: the same word, or one
/// the prefix of the other when the shorter has 3 letters or more (`config`
/// and `configuration`, `app` and `application`).
pub fn names_part(word: &str, part: &str) -> bool {
    let (short, long) = if word.len() <= part.len() { (word, part) } else { (part, word) };
    short == long || short.len() >= 3 && long.starts_with(short)
}

/// [`names_part`], or the two share all but the last two letters of the
/// shorter, four at least (`impls` and `implementations`, `router` and
/// `routing`, `dependency` and `dependencies`): how a question says what a
/// file's name abbreviates.
pub fn names_part_loosely(word: &str, part: &str) -> bool {
    let common = word.chars().zip(part.chars()).take_while(|(a, b)| a == b).count();
    let shorter = word.chars().count().min(part.chars().count());
    names_part(word, part) || common >= 4 && common + 2 >= shorter
}

/// Up to `k` of `paths` whose names `words` name ([`names_part_loosely`]),
/// best first: each word counts by how few files it names (a word naming
/// most of the repository, its own name, counts for nearly nothing), in the
/// file's own name fully, in its folder's name half; code before tests,
/// then shorter paths.
pub fn named_files<'p>(paths: impl Iterator<Item = &'p str>, words: &[String], k: usize) -> Vec<String> {
    if words.is_empty() || k == 0 {
        return Vec::new();
    }
    // Per path: for each word, 2 (its own name), 1 (its folder's) or 0.
    let mut matched: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut total = 0usize;
    // A part a word names starts with the word's first three letters: most
    // paths are passed over without splitting their names (the kernel has
    // 78,600; splitting them all cost ~20 ms a question).
    let heads: Vec<[u8; 3]> = words.iter().filter_map(|w| w.as_bytes().get(..3)).map(|h| [h[0], h[1], h[2]]).collect();
    for path in paths {
        total += 1;
        let mut tail = path.rsplitn(3, '/').take(2);
        if !tail.any(|name| may_name(name.as_bytes(), &heads)) {
            continue;
        }
        let (own, folder) = own_and_folder_parts(path);
        let m: Vec<u8> = words
            .iter()
            .map(|w| if own.iter().any(|p| names_part_loosely(w, p)) { 2 } else { u8::from(folder.iter().any(|p| names_part_loosely(w, p))) })
            .collect();
        if m.contains(&2) {
            matched.push((path, m));
        } else if m.iter().any(|x| *x > 0) {
            // Counted for the words' rarity, never a candidate alone.
            matched.push(("", m));
        }
    }
    let named_by: Vec<usize> = (0..words.len()).map(|i| matched.iter().filter(|(_, m)| m[i] > 0).count()).collect();
    let rarity: Vec<f32> = named_by.iter().map(|n| ((total as f32 + 1.0) / (*n as f32 + 1.0)).ln()).collect();
    let mut scored: Vec<(f32, &str)> =
        matched.iter().filter(|(p, _)| !p.is_empty()).map(|(p, m)| (m.iter().zip(&rarity).map(|(x, r)| part_weight(*x) * r).sum(), *p)).collect();
    scored.sort_by(|a, b| {
        Role::of(a.1).is_test_side().cmp(&Role::of(b.1).is_test_side()).then(b.0.total_cmp(&a.0)).then(a.1.len().cmp(&b.1.len())).then(a.1.cmp(b.1))
    });
    scored.into_iter().filter(|(s, _)| *s > 0.0).take(k).map(|(_, p)| p.to_string()).collect()
}

/// What a word naming a part of a path counts: 2 a part of the file's own
/// name (1), 1 a part of its folder's ([`FOLDER_PART`]), 0 none.
fn part_weight(named: u8) -> f32 {
    match named {
        2 => 1.0,
        1 => FOLDER_PART,
        _ => 0.0,
    }
}

/// Whether a part of `name` may start with one of `heads` (lowercase):
/// checked where a part may start (the name's start, after a separator, at
/// a capital or where letters and digits meet), ASCII letters in any case.
fn may_name(name: &[u8], heads: &[[u8; 3]]) -> bool {
    (0..name.len().saturating_sub(2)).any(|i| {
        let starts = i == 0 || {
            let (before, at) = (name[i - 1], name[i]);
            !before.is_ascii_alphanumeric() || at.is_ascii_uppercase() || before.is_ascii_digit() != at.is_ascii_digit()
        };
        starts && {
            let three = [name[i].to_ascii_lowercase(), name[i + 1].to_ascii_lowercase(), name[i + 2].to_ascii_lowercase()];
            heads.contains(&three)
        }
    })
}

/// [`name_parts`] of a path's own file name, and of its folder's name.
fn own_and_folder_parts(path: &str) -> (Vec<String>, Vec<String>) {
    let mut names = path.rsplit('/');
    let file = names.next().unwrap_or(path);
    let own = name_parts(file);
    let folder = names.next().map(name_parts).unwrap_or_default();
    (own, folder)
}

/// The last two parts of a path (its folder and name); `None` for a file at
/// the root.
fn folder_and_name(path: &str) -> Option<&str> {
    let name = path.rfind('/')?;
    Some(path[..name].rfind('/').map_or(path, |folder| &path[folder + 1..]))
}

/// How many folders a path's folder and name are under.
fn depth_above(path: &str, end: &str) -> usize {
    path[..path.len() - end.len()].matches('/').count()
}

/// For each folder-and-name ending of a repository's paths, how few
/// folders lie above it: what [`PathEnds::copies`] compares against. Built
/// once per open index, each ending kept as a 64-bit hash (the kernel's
/// 78,601 paths: a few ms, where owned strings cost ~25 ms a process; a
/// collision could only misorder a tie).
pub struct PathEnds(FxHashMap<u64, usize>);

fn end_key(end: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(end.as_bytes());
    h.finish()
}

impl PathEnds {
    pub fn of(all: impl Iterator<Item = impl AsRef<str>>) -> PathEnds {
        let mut nearest: FxHashMap<u64, usize> = FxHashMap::default();
        for p in all {
            let p = p.as_ref();
            if let Some(end) = folder_and_name(p) {
                let depth = depth_above(p, end);
                nearest.entry(end_key(end)).and_modify(|d| *d = (*d).min(depth)).or_insert(depth);
            }
        }
        PathEnds(nearest)
    }

    /// Which of `paths` copy another file: one that ends in the same folder
    /// and name nearer the root (`tools/include/linux/slab.h` beside
    /// `include/linux/slab.h`: mirrored headers, vendored trees).
    pub fn copies<'p>(&self, paths: &[&'p str]) -> HashSet<&'p str> {
        paths.iter().copied().filter(|p| folder_and_name(p).is_some_and(|end| self.0.get(&end_key(end)).is_some_and(|d| *d < depth_above(p, end)))).collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_deeper_file_with_the_same_folder_and_name_is_a_copy() {
        let all = [
            "include/linux/slab.h",
            "tools/include/linux/slab.h",
            "tools/virtio/linux/kernel.h",
            "include/linux/kernel.h",
            "mm/slab.c",
            "a/b/slab.c",
            "README",
        ];
        let paths = ["tools/include/linux/slab.h", "include/linux/slab.h", "tools/virtio/linux/kernel.h", "mm/slab.c", "a/b/slab.c", "README"];
        let mut found: Vec<&str> = PathEnds::of(all.iter()).copies(&paths).into_iter().collect();
        found.sort();
        // `a/b/slab.c` ends in `b/slab.c`, not `mm/slab.c`.
        assert_eq!(found, ["tools/include/linux/slab.h", "tools/virtio/linux/kernel.h"]);
        assert_eq!(folder_and_name("linux/slab.h"), Some("linux/slab.h"));
        assert_eq!((folder_and_name("x/y/linux/slab.h"), folder_and_name("slab.h")), (Some("linux/slab.h"), None));
        assert_eq!(depth_above("x/y/linux/slab.h", "linux/slab.h"), 2);
    }

    use super::*;

    fn words(text: &str) -> Vec<String> {
        content_words(text)
    }

    #[test]
    fn the_files_a_question_names_rarest_word_first() {
        let paths =
            ["fmt/include/fmt/args.h", "fmt/include/fmt/format.h", "fmt/src/format.cc", "fmt/test/args-test.cc", "fmt/include/fmt/color.h", "fmt/doc/api.md"];
        let named = named_files(paths.into_iter(), &words("fmt::arg named arguments for use in format strings"), 5);
        // `arg` names args.h (and its test, last); `format` two files; `fmt` names every folder but no file.
        assert_eq!(named, ["fmt/include/fmt/args.h", "fmt/include/fmt/format.h", "fmt/src/format.cc", "fmt/test/args-test.cc"]);
        let named = named_files(["src/Routing/UrlGenerator.php", "src/Http/Request.php"].into_iter(), &words("routing HTTP requests to controllers"), 5);
        assert_eq!(named, ["src/Http/Request.php"], "a folder's name alone names no file");
        assert!(named_files(paths.into_iter(), &words("how does it work"), 5).is_empty());
        // A name abbreviated otherwise than by a prefix.
        assert!(names_part_loosely("implementations", "impls") && names_part_loosely("routing", "router") && names_part_loosely("dependencies", "dependency"));
        assert!(!names_part_loosely("parse", "part") && !names_part_loosely("routing", "route_map") && !names_part("routing", "router"));
        // Parts start at capitals, separators and digits, in any case.
        let heads = [*b"req", *b"v2x"];
        assert!(may_name(b"HttpRequest", &heads) && may_name(b"http_REQUEST.php", &heads) && may_name(b"a-v2x", &heads));
        assert!(!may_name(b"unrequested", &heads) && !may_name(b"re", &heads));
    }
}

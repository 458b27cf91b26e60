//! The ranking stage: the fused candidates of a short question (not an issue
//! report, not `--files`), re-scored by one linear function of a few
//! features each ([`crate::query::base::features`]: one arm of `Feature::value` each),
//! with weights fitted on the dev data by `scripts/fit-ranking.py`
//! ([`crate::query::base::parameters::STAGE`]). The features are what
//! peers' ranking looks at and fusion does not: a file's second and third
//! chunk in the list, how many of a file's chunks are candidates, the
//! question's words in the path and in the parts of the file's name, how
//! many of the question's words the chunk and its whole file hold ([`Evidence`],
//! read from the keyword index), how much a whole file is about a short
//! question's topic (its BM25 as one document), a definition named by the
//! question, the kind of chunk and how long it is, test and example code.
//!
//! Invariant: with the weight of `position` alone (and no penalty for a
//! file's further chunks), a linear scorer keeps the order it was given.

use crate::analysis::kind::Kind;
use crate::analysis::role::Role;
use crate::query::answer::explain::{Contribution, Explanation, RankedBy};
use crate::query::answer::Hit;
use crate::query::answer::SearchResult;
use crate::query::base::features::{Feature, PerFeature, Scope};
use crate::query::base::parameters::{Table, BM25_B, BM25_K1, FILE_SUPPORT_CAP, SPAN_FULL_LINES, TOPICAL_WORDS};
use crate::query::question::intent::{looks_like_code, Intent};
use crate::query::question::Question;
use crate::query::retrieve::paths::{content_words, name_parts, names_part, names_part_loosely};
use crate::query::retrieve::Chunks;
use crate::stores::keyword::{analyze, split_identifier, FileTerms};
use std::collections::HashMap;

/// Whether the fitted stage re-scores a question's candidates: every short
/// question does; an issue report keeps its grouped form and a graph
/// question is answered by its walk.
pub fn applies(q: &Question) -> bool {
    match q.analysis.intent {
        Intent::Identifier | Intent::Keyword | Intent::Concept | Intent::Mixed => true,
        Intent::Graph | Intent::Document => false,
    }
}

fn reciprocal(rank: Option<usize>) -> f32 {
    rank.map_or(0.0, |r| 1.0 / r.max(1) as f32)
}

/// A path's file name without its extension(s), lowercase.
fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name).to_lowercase()
}

/// Code that shows, measures or adapts the code rather than being it:
/// examples, benchmarks, vendored code ([`Role`]), TypeScript declaration
/// files, compatibility shims.
fn aside(path: &str) -> bool {
    let lower = path.to_lowercase();
    matches!(Role::of(path), Role::Example | Role::Bench | Role::Vendored)
        || lower.ends_with(".d.ts")
        || lower.split('/').rev().skip(1).any(|dir| dir == "compat")
}

/// Words that ask for old or compatibility code.
const OLD_CODE_WORDS: [&str; 6] = ["compat", "compatibility", "deprecated", "legacy", "obsolete", "old"];

/// Whether `path` is in a folder the code has moved on from: a version
/// folder (`v1`) when the pool's `paths` hold a newer version's folder
/// beside it (`v3/types.ts`, `v4/core/api.ts`) or
/// the same file without it (`pydantic/v1/fields.py`, `pydantic/fields.py`);
/// an `api/v1/` that is the only API is current code. Not when
/// the question (`asked`: its words, lowercase) names that folder or asks
/// for old or compatibility code. Such a copy matches a question's words
/// as well as the code people mean.
fn superseded(path: &str, paths: &[&str], asked: &[String]) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let folders = &parts[..parts.len() - 1];
    let asks = |word: &str| asked.iter().any(|w| w == word);
    if OLD_CODE_WORDS.into_iter().any(asks) {
        return false;
    }
    let version = |name: &str| name.strip_prefix(['v', 'V']).and_then(|n| n.parse::<u32>().ok());
    // Only the old folder itself, named by the question, asks for it: the
    // folders above it (`packages/zod/src/v3`) are the current code's too.
    folders.iter().enumerate().filter(|(_, f)| !asks(&f.to_lowercase())).any(|(k, folder)| {
        version(folder).is_some_and(|v| {
            paths.iter().any(|other| {
                let theirs: Vec<&str> = other.split('/').collect();
                theirs.len() > k
                    && theirs[..k] == parts[..k]
                    && ((theirs.len() > k + 1 && version(theirs[k]).is_some_and(|w| w > v)) || theirs[k..] == parts[k + 1..])
            })
        })
    })
}

/// A file's name without its extension, and the extension (`d.ts` whole).
fn stem_and_extension(path: &str) -> (&str, &str) {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.strip_suffix(".d.ts") {
        Some(stem) => (stem, "d.ts"),
        None => name.rsplit_once('.').unwrap_or((name, "")),
    }
}

/// Whether `path` declares what another of the pool's `paths` implements:
/// a header or stub beside the source of the same name (`connect.h` and
/// `connect.c`, `api.pyi` and `api.py`, `index.d.ts` and `index.js`), or
/// an interface in a folder of interfaces beside the class of the same
/// file name (`Contracts/Events/Dispatcher.php`, `Events/Dispatcher.php`).
/// Both match the question's words; the implementation is what it asks for.
fn declares_other(path: &str, paths: &[&str]) -> bool {
    const DECLARATIONS: [&str; 6] = ["h", "hh", "hpp", "hxx", "pyi", "d.ts"];
    const SOURCES: [&str; 9] = ["c", "cc", "cpp", "cxx", "m", "mm", "py", "js", "ts"];
    const INTERFACE_FOLDERS: [&str; 5] = ["contracts", "contract", "interfaces", "interface", "abstractions"];
    let in_interfaces = |p: &str| p.split('/').rev().skip(1).any(|f| INTERFACE_FOLDERS.contains(&f.to_lowercase().as_str()));
    let (stem, extension) = stem_and_extension(path);
    paths.iter().filter(|other| **other != path).any(|other| {
        let (other_stem, other_extension) = stem_and_extension(other);
        other_stem == stem
            && ((DECLARATIONS.contains(&extension) && SOURCES.contains(&other_extension))
                || (other_extension == extension && in_interfaces(path) && !in_interfaces(other)))
    })
}

/// How much code a chunk shows, from a one-line clause (0) to a section of
/// 200 lines or more (1), on a log scale: BM25 favours short chunks that
/// repeat a word; a question about a topic is answered by a section.
fn span(h: &Hit) -> f32 {
    let lines = h.end_line.saturating_sub(h.start_line) as f32;
    (lines.ln_1p() / SPAN_FULL_LINES.ln_1p()).min(1.0)
}

/// The share of `words` that name a part of the path's names ([`name_parts`]).
fn name_parts_share(words: &[String], path: &str) -> f32 {
    if words.is_empty() {
        return 0.0;
    }
    let parts = name_parts(path);
    words.iter().filter(|w| parts.iter().any(|p| names_part(w, p))).count() as f32 / words.len() as f32
}

/// What the stage reads of its candidates besides the hits: the question's
/// words as the keyword index holds them, how rare each is, and how often
/// each candidate's file holds them (a file that speaks of everything the
/// question names is about it, though no one chunk of it says it all).
pub struct Evidence {
    terms: Vec<String>,
    idf: Vec<f32>,
    files: HashMap<String, FileEvidence>,
    /// The files' mean length in tokens (BM25's norm for a file).
    mean_length: f32,
}

/// One file's counts of the question's terms, and its length in tokens.
struct FileEvidence {
    counts: Vec<u32>,
    length: u32,
}

impl Evidence {
    /// Reads the evidence for `pool` (whose contents are filled) from `source`.
    pub fn read(source: &dyn Chunks, pool: &[Hit], q: &Question) -> SearchResult<Evidence> {
        let mut terms: Vec<String> = Vec::new();
        for w in content_words(&q.text) {
            // The word whole: an identifier's first term, before its parts.
            if let Some(t) = analyze(&w).into_iter().next().filter(|t| !terms.contains(t)) {
                terms.push(t);
            }
        }
        let mut paths: Vec<&str> = Vec::new();
        for h in pool {
            if !paths.contains(&h.path.as_str()) {
                paths.push(&h.path);
            }
        }
        let found = match source.file_terms(&paths, &terms)? {
            Some(found) => found,
            // Without an index of the files' words: what their candidates
            // hold, every term as rare as the others.
            None => {
                let (counts, lengths) = paths.iter().map(|p| counted_in(pool.iter().filter(|h| h.path == *p).map(|h| h.content.as_str()), &terms)).unzip();
                FileTerms { counts, lengths, idf: vec![1.0; terms.len()] }
            }
        };
        let mean_length = found.lengths.iter().map(|l| *l as f32).sum::<f32>() / found.lengths.len().max(1) as f32;
        let files = paths
            .iter()
            .map(|p| p.to_string())
            .zip(found.counts.into_iter().zip(found.lengths).map(|(counts, length)| FileEvidence { counts, length }))
            .collect();
        Ok(Evidence { terms, idf: found.idf, files, mean_length })
    }

    /// The share of the question's terms that `counts` holds.
    fn share(&self, counts: &[u32]) -> f32 {
        if self.terms.is_empty() {
            return 0.0;
        }
        counts.iter().filter(|c| **c > 0).count() as f32 / self.terms.len() as f32
    }

    /// BM25 of a whole file for the question's terms ([`BM25_K1`], [`BM25_B`],
    /// the pool's files' mean length as the norm): how much the file is about
    /// what the question names, beyond any one of its chunks.
    fn file_bm25(&self, path: &str) -> f32 {
        let Some(file) = self.files.get(path) else { return 0.0 };
        let norm = BM25_K1 * ((1.0 - BM25_B) + BM25_B * file.length as f32 / self.mean_length.max(1.0));
        file.counts.iter().zip(&self.idf).map(|(&tf, idf)| idf * tf as f32 * (BM25_K1 + 1.0) / (tf as f32 + norm)).sum()
    }
}

/// How often `texts` together hold each of `terms`, and how many tokens they hold.
fn counted_in<'t>(texts: impl Iterator<Item = &'t str>, terms: &[String]) -> (Vec<u32>, u32) {
    let mut counts = vec![0; terms.len()];
    let mut length = 0;
    for text in texts {
        for t in analyze(text) {
            length += 1;
            if let Some(i) = terms.iter().position(|x| *x == t) {
                counts[i] += 1;
            }
        }
    }
    (counts, length)
}

/// What the features of every candidate read of the question and the pool.
struct Pool<'a> {
    pool: &'a [Hit],
    evidence: &'a Evidence,
    /// The question's content words.
    words: Vec<String>,
    /// The names it writes, letter case kept.
    written: Vec<&'a str>,
    /// The best fused score of the pool.
    top: f32,
    /// A short phrase that names a topic (not one identifier, not a long
    /// description of one behaviour): answered by the file about it.
    topical: bool,
    /// Its subject: the first word, unless that is the project's name
    /// ("how zls resolves imports" is about imports, not `zls.zig`).
    subject: Option<String>,
    /// The best whole-file BM25 of the pool's files.
    best_file: f32,
    sole_definitions: Vec<usize>,
    first_definitions: Vec<usize>,
    /// The question's words, lowercase, stop words kept.
    asked: Vec<String>,
    paths: Vec<&'a str>,
    /// The question's words but the project's name: the project's name
    /// names the project, not its `zls.zig` or `phoenix.ex`.
    naming: Vec<String>,
    shared_names: Vec<&'a str>,
}

impl<'a> Pool<'a> {
    fn new(pool: &'a [Hit], q: &'a Question, evidence: &'a Evidence) -> Pool<'a> {
        let words = content_words(&q.text);
        let written = written_names(&q.text);
        let topical = TOPICAL_WORDS.contains(&words.len()) && q.analysis.intent != Intent::Identifier;
        let subject = words.iter().find(|w| !q.project.contains(w)).cloned();
        let best_file = pool.iter().map(|h| evidence.file_bm25(&h.path)).fold(f32::MIN_POSITIVE, f32::max);
        let sole_definitions = sole_definitions(pool, &written);
        // Only a bare name's symbol list has its ties in that order (`Local::definitions_first`).
        let first_definitions = if q.analysis.intent == Intent::Identifier { first_definitions(pool, &written) } else { Vec::new() };
        let asked = q.text.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
        let paths: Vec<&str> = pool.iter().map(|h| h.path.as_str()).collect();
        let naming = words.iter().filter(|w| !q.project.contains(w)).cloned().collect();
        let shared_names = names_in_several_folders(&paths);
        Pool {
            pool,
            evidence,
            top: pool.iter().map(|h| h.score).fold(0.0f32, f32::max),
            words,
            written,
            topical,
            subject,
            best_file,
            sole_definitions,
            first_definitions,
            asked,
            paths,
            naming,
            shared_names,
        }
    }

    /// The share of the question's words `hay` holds.
    fn share(&self, hay: &str) -> f32 {
        if self.words.is_empty() {
            0.0
        } else {
            self.words.iter().filter(|w| hay.contains(w.as_str())).count() as f32 / self.words.len() as f32
        }
    }
}

/// One candidate of the pool, with what several features read of it.
struct Candidate<'a> {
    /// Its place in the pool, from 0.
    at: usize,
    hit: &'a Hit,
    /// How many chunks of its file come before it in the pool.
    before: usize,
    /// How many of the pool's candidates are of its file.
    same_file: usize,
    /// Its path, lowercase.
    path: String,
    /// Its file's name without extensions, lowercase.
    file_stem: String,
    /// The definition's own name, lowercase.
    name: Option<String>,
    /// The share of the question's words its file holds.
    file_share: f32,
}

impl<'a> Candidate<'a> {
    fn new(pool: &Pool<'a>, at: usize) -> Candidate<'a> {
        let hit = &pool.pool[at];
        Candidate {
            at,
            hit,
            before: pool.pool[..at].iter().filter(|o| o.path == hit.path).count(),
            same_file: pool.pool.iter().filter(|o| o.path == hit.path).count(),
            path: hit.path.to_lowercase(),
            file_stem: stem(&hit.path),
            name: hit.symbol.as_deref().map(crate::analysis::name::own_part).map(str::to_lowercase),
            file_share: pool.evidence.files.get(&hit.path).map_or(0.0, |file| pool.evidence.share(&file.counts)),
        }
    }
}

fn flag(b: bool) -> f32 {
    f32::from(u8::from(b))
}

impl Feature {
    /// This feature's value for candidate `c` of `pool` ([`Feature::meaning`]
    /// says what each measures).
    fn value(self, pool: &Pool, c: &Candidate) -> f32 {
        let (h, s) = (c.hit, &c.hit.signals);
        match self {
            Feature::Position => 1.0 / (c.at + 1) as f32,
            Feature::Score => {
                if pool.top > 0.0 {
                    h.score / pool.top
                } else {
                    0.0
                }
            }
            Feature::Bm25 => reciprocal(s.bm25),
            Feature::Symbol => reciprocal(s.symbol),
            Feature::Dense => reciprocal(s.dense),
            Feature::Exact => reciprocal(s.exact),
            Feature::Graph => reciprocal(s.graph),
            Feature::OtherLists => reciprocal([s.feedback, s.callees, s.patterns].into_iter().flatten().min()),
            Feature::SecondOfFile => flag(c.before == 1),
            Feature::ThirdOfFile => flag(c.before >= 2),
            Feature::FileSupport => (c.same_file - 1).min(FILE_SUPPORT_CAP) as f32 / FILE_SUPPORT_CAP as f32,
            Feature::PathWords => pool.share(&c.path),
            Feature::StemWords => pool.share(&c.file_stem),
            Feature::SymbolWord => flag(c.name.as_ref().is_some_and(|n| pool.words.contains(n))),
            Feature::Outline => flag(matches!(h.kind, Kind::File | Kind::Fallback | Kind::Module)),
            // Not a line window: those are mostly code too big to parse.
            Feature::Prose => flag(h.kind.is_prose()),
            Feature::TypeDecl => flag(h.kind.is_type_like(false)),
            Feature::Test => flag(Role::of(&h.path).is_test_side()),
            Feature::Aside => flag(aside(&h.path)),
            Feature::Span => span(h),
            Feature::NameParts => name_parts_share(&pool.words, &h.path),
            Feature::ChunkWords => pool.evidence.share(&counted_in(std::iter::once(h.content.as_str()), &pool.evidence.terms).0),
            Feature::FileWords => c.file_share,
            Feature::NameAsWritten => flag(pool.written.iter().any(|w| defines(h, w))),
            Feature::FileNamed => flag(pool.words.contains(&c.file_stem)),
            Feature::Named => reciprocal(s.named),
            Feature::CodeName => flag(pool.sole_definitions.contains(&c.at)),
            Feature::Superseded => flag(superseded(&h.path, &pool.paths, &pool.asked)),
            Feature::DeclaresOther => flag(declares_other(&h.path, &pool.paths)),
            // A short phrase leads with its subject; said once per file.
            Feature::LeadFile => flag(pool.topical && pool.subject.as_ref() == Some(&c.file_stem) && c.before == 0),
            Feature::PhrasePath => flag(pool.topical && c.before == 0 && reads_as_path(&pool.words, pool.subject.as_ref(), &h.path)),
            Feature::FirstDefinition => flag(pool.first_definitions.contains(&c.at)),
            // A file the question names and that holds its words is what it asks about.
            Feature::WholeName => {
                let named = !pool.shared_names.contains(&own_stem(&h.path)) && names_whole_file(&pool.naming, &h.path);
                if named {
                    c.file_share
                } else {
                    0.0
                }
            }
            Feature::TopicFile => {
                if pool.topical {
                    pool.evidence.file_bm25(&h.path) / pool.best_file
                } else {
                    0.0
                }
            }
        }
    }
}

/// The features of each candidate of `pool`, in its order (the file's
/// features on every candidate: [`keep_file_features_on_best`] keeps them
/// on one).
pub fn features(pool: &[Hit], q: &Question, evidence: &Evidence) -> Vec<PerFeature> {
    let view = Pool::new(pool, q, evidence);
    (0..pool.len())
        .map(|at| {
            let c = Candidate::new(&view, at);
            let mut values = PerFeature::ZERO;
            for &f in Feature::ALL {
                values[f] = f.value(&view, &c);
            }
            values
        })
        .collect()
}

/// Whether a phrase reads as `path` from its `subject` on: the subject
/// names the file's folder and a later word the file ("engine
/// configuration and load paths" -> `engine/configuration.rb`, "session
/// driver" -> `Sessions/SessionDriver.swift`), each loosely
/// ([`names_part_loosely`]: plurals, `-ing`, abbreviations).
fn reads_as_path(words: &[String], subject: Option<&String>, path: &str) -> bool {
    let Some(at) = subject.and_then(|s| words.iter().position(|w| w == s)) else { return false };
    let Some(folder) = path.rsplit('/').nth(1).map(str::to_lowercase) else { return false };
    let file = stem(path);
    names_part_loosely(&words[at], &folder) && words[at + 1..].iter().any(|w| names_part_loosely(w, &file))
}

/// Whether `words` name every part of `path`'s own name (`StringUtils`:
/// string, utils; `bash-it.completion`: bash, it, completion), each
/// loosely ([`names_part_loosely`]: "routing" names `Router.php`,
/// "transfer" `transfer.c`): the question says the file's name, in its
/// own words.
fn names_whole_file(words: &[String], path: &str) -> bool {
    let parts: Vec<String> =
        own_stem(path).split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).flat_map(split_identifier).map(str::to_lowercase).collect();
    !parts.is_empty() && parts.iter().all(|p| words.iter().any(|w| names_part_loosely(w, p)))
}

/// `path`'s file name without its last extension (`pipe.test` of
/// `pipe.test.ts`), letter case kept.
fn own_stem(path: &str) -> &str {
    stem_and_extension(path).0
}

/// The file names (without their last extension) that files of several
/// folders of `paths` have (`v4/core/schemas.ts`, `v4/classic/schemas.ts`):
/// a question naming one names none of them more than the others.
fn names_in_several_folders<'p>(paths: &[&'p str]) -> Vec<&'p str> {
    let mut folders: HashMap<&str, Vec<&str>> = HashMap::new();
    for path in paths {
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
        let seen = folders.entry(own_stem(path)).or_default();
        if !seen.contains(&folder) {
            seen.push(folder);
        }
    }
    folders.into_iter().filter(|(_, f)| f.len() > 1).map(|(name, _)| name).collect()
}

/// The names a question writes, letter case kept: words, and qualified
/// names whole (`Invoice.tax`, `fmt::format`, `Foo\\Bar`), without the
/// punctuation around them.
fn written_names(text: &str) -> Vec<&str> {
    let qualifier = |c: char| matches!(c, '.' | ':' | '\\');
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || qualifier(c))).map(|w| w.trim_matches(qualifier)).filter(|w| !w.is_empty()).collect()
}

/// Whether `h` defines a name the question writes (`written`, letter case
/// kept): [`names_as_written`].
fn defines(h: &Hit, written: &str) -> bool {
    h.symbol.as_deref().is_some_and(|s| names_as_written(written, s, crate::analysis::name::own_part(s)))
}

/// The candidates that define a code-shaped name the question writes
/// (`LimitedRead`, `build_pool_key`, `fmt::format`: not an English word)
/// when they are the pool's only file that does: a question that names
/// one definition this way asks for it, however topical its other words
/// ("LimitedRead type in the response module"). A name several files
/// define (an interface and its implementations, two versions of an API)
/// says less: the other features choose among them.
fn sole_definitions(pool: &[Hit], written: &[&str]) -> Vec<usize> {
    let mut sole = Vec::new();
    for name in written.iter().filter(|w| looks_like_code(w) || w.contains([':', '\\'])) {
        let defining: Vec<usize> = (0..pool.len()).filter(|&i| defines(&pool[i], name)).collect();
        if let Some(&first) = defining.first() {
            if defining.iter().all(|&i| pool[i].path == pool[first].path) {
                sole.extend(defining);
            }
        }
    }
    sole
}

/// The candidates that define a name the question writes (`written`) when
/// several files of the pool define it, each the one the symbol list ranks
/// first of them: for a bare name that list orders a name's definitions as
/// it is meant (copies and prototypes after, nearer the root and more used
/// first), where the fused order may follow the file that repeats it most.
/// Only a bare name's list is so ordered: other questions mark none.
fn first_definitions(pool: &[Hit], written: &[&str]) -> Vec<usize> {
    // A one-line binding (`var parse = require('./utils').parse`) names
    // what another file defines.
    let binding = |h: &Hit| matches!(h.kind, Kind::Variable | Kind::Const) && h.start_line == h.end_line;
    let mut first = Vec::new();
    for name in written {
        let defining: Vec<usize> = (0..pool.len()).filter(|&i| defines(&pool[i], name) && pool[i].signals.symbol.is_some() && !binding(&pool[i])).collect();
        let Some(&one) = defining.first() else { continue };
        if defining.iter().any(|&i| pool[i].path != pool[one].path) {
            first.extend(defining.iter().copied().min_by_key(|&i| pool[i].signals.symbol));
        }
    }
    first
}

/// Whether `written` (a name as the question writes it) names the
/// definition `symbol` (its qualified name) whose own name is `own`: a word
/// is its own name; a qualified name is its qualified name, or ends with it
/// (`requests.get` for `get`), or is its end (`Session.send` for
/// `requests.Session.send`), in any language's separators.
fn names_as_written(written: &str, symbol: &str, own: &str) -> bool {
    if !written.contains(['.', ':', '\\']) {
        return written == own;
    }
    let dotted = |s: &str| s.replace("::", ".").replace(['\\', '#', ':'], ".");
    let (w, s) = (dotted(written), dotted(symbol));
    w == s || w.ends_with(&format!(".{s}")) || s.ends_with(&format!(".{w}"))
}

/// Whether fusion placed a candidate for the question's structure alone: a
/// step of the process the best candidate drives (`callees`), a convention
/// the question asks for (`patterns`), found by no list that reads the
/// question's words or meaning. The stage keeps such a candidate where
/// fusion put it: none of its features says why it is there, and the dev
/// data asks for neither kind of answer. (Keeping every candidate those
/// lists hold, or every one they rank better than the word lists do, held
/// out worse: 2026-11-27, `docs/experiments.md`.)
pub fn placed_by_structure(h: &Hit) -> bool {
    let s = &h.signals;
    (s.callees.is_some() || s.patterns.is_some()) && [s.bm25, s.dense, s.symbol, s.exact, s.graph].iter().all(Option::is_none)
}

/// A candidate's score by the fitted table (the very sum its explanation
/// adds, `PerFeature::weighed`, every feature in order) and, with
/// `explain`, its terms.
fn scored(table: &Table, values: &PerFeature, explain: bool) -> (f32, Vec<Contribution>) {
    let terms =
        if explain { values.iter().filter(|(_, v)| *v != 0.0).map(|(f, v)| Contribution::new(f.name(), v, table.weights[f])).collect() } else { Vec::new() };
    (values.weighed(&table.weights, None), terms)
}

/// The candidates in the order of their scores (`scorer`'s; ties: the
/// order they came in), each slot given to the best after every candidate
/// loses the scorer's repeat-of-file penalty per chunk of its file already
/// placed, those [`placed_by_structure`] kept in their places; with
/// `explain`, each candidate's score is explained by its terms. The scores
/// reported stay the fused ones, handed out in the new order (the best to
/// the first), so that they fall down the list and `--min-score` cuts it.
pub fn rerank(mut hits: Vec<Hit>, pool: usize, q: &Question, evidence: &Evidence, table: &Table, explain: bool) -> Vec<Hit> {
    let n = hits.len().min(pool);
    let mut feats = features(&hits[..n], q, evidence);
    let kept: Vec<bool> = hits[..n].iter().map(placed_by_structure).collect();
    keep_file_features_on_best(&hits[..n], &mut feats, &table.weights);
    let (scores, mut terms): (Vec<f32>, Vec<Vec<Contribution>>) = feats.iter().map(|f| scored(table, f, explain)).unzip();
    let repeat = table.repeat_of_file;
    let order = placed_order(&hits[..n], &scores, &kept, repeat);
    let rest = hits.split_off(n);
    let mut fused_scores: Vec<f32> = hits.iter().map(|h| h.score).collect();
    fused_scores.sort_by(|a, b| b.total_cmp(a));
    let mut slots: Vec<Option<Hit>> = hits.into_iter().map(Some).collect();
    let mut out: Vec<Hit> = Vec::with_capacity(n + rest.len());
    for ((i, placed), fused) in order.into_iter().zip(fused_scores) {
        if let Some(mut h) = slots[i].take() {
            if explain {
                let e = explained(std::mem::take(&mut terms[i]), scores[i], kept[i], placed, repeat, h.explain.take());
                h.explain = Some(Box::new(e));
            }
            h.score = fused;
            out.push(h);
        }
    }
    out.extend(rest);
    out
}

/// Notes on each candidate of `pool` (a question the stage does not score)
/// the features the stage would read, in its explanation.
pub fn note_features(pool: &mut [Hit], q: &Question, evidence: &Evidence, table: &Table) {
    let mut feats = features(pool, q, evidence);
    keep_file_features_on_best(pool, &mut feats, &table.weights);
    for (h, values) in pool.iter_mut().zip(feats) {
        if let Some(e) = h.explain.as_deref_mut() {
            e.unscored_features = values.iter().filter(|(_, v)| *v != 0.0).map(|(f, v)| Contribution::new(f.name(), v, table.weights[f])).collect();
        }
    }
}

/// A candidate's stage score (`score`, the sum of `terms`) explained, then
/// what it lost for the `placed` chunks of its file above it (a kept
/// candidate loses nothing); `fused` explains the fused score it read.
fn explained(terms: Vec<Contribution>, score: f32, kept: bool, placed: f32, repeat: f32, fused: Option<Box<Explanation>>) -> Explanation {
    let mut e = Explanation::new(if kept { RankedBy::Structure } else { RankedBy::Stage });
    e.contributions = terms;
    e.score = score;
    if !kept && placed > 0.0 && repeat != 0.0 {
        e.add(Contribution::new("repeat_of_file", placed, -repeat));
    }
    e.fused = fused;
    e
}

/// The features of [`Scope::File`] speak of a file, not a chunk: they stay
/// on the candidate of each file that the other features score best, and
/// are 0 on the rest (lifting the file once, as one result, not all its
/// chunks).
fn keep_file_features_on_best(pool: &[Hit], feats: &mut [PerFeature], weights: &PerFeature) {
    let mut best_of_file: HashMap<&str, (usize, f32)> = HashMap::new();
    for (i, (h, f)) in pool.iter().zip(feats.iter()).enumerate() {
        let score = f.weighed(weights, Some(Scope::Chunk));
        let best = best_of_file.entry(h.path.as_str()).or_insert((i, score));
        if score > best.1 {
            *best = (i, score);
        }
    }
    for (i, (h, f)) in pool.iter().zip(feats.iter_mut()).enumerate() {
        if best_of_file.get(h.path.as_str()).is_some_and(|(b, _)| *b != i) {
            for &file_feature in Feature::ALL.iter().filter(|f| f.scope() == Scope::File) {
                f[file_feature] = 0.0;
            }
        }
    }
}

/// The order of `pool` by `scores`: kept candidates in their own slots,
/// every other slot to the best remaining candidate once each has lost
/// `repeat` for every chunk of its file above the slot (ties: the earlier);
/// each with how many chunks of its file were above it.
fn placed_order(pool: &[Hit], scores: &[f32], kept: &[bool], repeat: f32) -> Vec<(usize, f32)> {
    let mut placed_of_file: HashMap<&str, f32> = HashMap::new();
    let mut free: Vec<usize> = (0..pool.len()).filter(|i| !kept[*i]).collect();
    let mut order = Vec::with_capacity(pool.len());
    for (slot, &is_kept) in kept.iter().enumerate().take(pool.len()) {
        let placed = |i: usize| placed_of_file.get(pool[i].path.as_str()).copied().unwrap_or(0.0);
        let pick = if is_kept {
            slot
        } else {
            let value = |i: usize| scores[i] - repeat * placed(i);
            let Some(at) = (0..free.len()).reduce(|best, at| if value(free[at]) > value(free[best]) { at } else { best }) else { break };
            free.remove(at)
        };
        order.push((pick, placed(pick)));
        *placed_of_file.entry(pool[pick].path.as_str()).or_insert(0.0) += 1.0;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Evidence {
        fn empty() -> Evidence {
            Evidence { terms: Vec::new(), idf: Vec::new(), files: HashMap::new(), mean_length: 0.0 }
        }
    }

    fn hit(path: &str, symbol: &str, score: f32) -> Hit {
        Hit { path: path.into(), symbol: Some(symbol.into()), kind: Kind::Function, score, ..Hit::default() }
    }

    #[test]
    fn the_position_weight_alone_keeps_the_order() {
        let q = Question::new("where is the session cookie jar merged");
        let hits = vec![hit("a.py", "x", 0.1), hit("a.py", "y", 0.5), hit("b/merge.py", "merge", 0.2)];
        let mut w = PerFeature::ZERO;
        w[Feature::Position] = 1.0;
        let order: Vec<String> =
            rerank(hits.clone(), crate::query::base::parameters::STAGE_POOL, &q, &Evidence::empty(), &Table { weights: w, repeat_of_file: 0.0 }, false)
                .into_iter()
                .filter_map(|h| h.symbol)
                .collect();
        assert_eq!(order, ["x", "y", "merge"]);
        // Reordered, the scores still fall down the list.
        w[Feature::Position] = 0.0;
        w[Feature::Score] = 1.0;
        let scored: Vec<(String, f32)> =
            rerank(hits, crate::query::base::parameters::STAGE_POOL, &q, &Evidence::empty(), &Table { weights: w, repeat_of_file: 0.0 }, false)
                .into_iter()
                .map(|h| (h.symbol.unwrap_or_default(), h.score))
                .collect();
        assert_eq!(scored, [("y".to_string(), 0.5), ("merge".to_string(), 0.2), ("x".to_string(), 0.1)]);
    }

    #[test]
    fn features_read_files_paths_and_names() {
        let q = Question::new("how is the cookie jar merged");
        let pool = vec![hit("src/cookies.py", "merge_cookies", 1.0), hit("src/cookies.py", "jar", 0.5), hit("tests/test_cookies.py", "test_jar", 0.25)];
        let f = features(&pool, &q, &Evidence::empty());
        let at = |name: &str| Feature::named(name).expect("feature");
        assert_eq!(f[0][at("score")], 1.0);
        assert_eq!(f[1][at("second_of_file")], 1.0);
        assert_eq!(f[0][at("second_of_file")], 0.0);
        assert_eq!(f[0][at("file_support")], 0.25);
        assert_eq!(f[1][at("symbol_word")], 1.0);
        assert_eq!(f[0][at("symbol_word")], 0.0);
        assert!(f[0][at("path_words")] > 0.0 && f[0][at("stem_words")] > 0.0);
        assert_eq!(f[2][at("test")], 1.0);
        assert_eq!(f[0][at("file_named")], 0.0, "cookies is not the word cookie");
        let f = features(
            &[hit("src/Http/Request.php", "Request", 1.0), hit("src/Http/RequestGuard.php", "Request", 0.5)],
            &Question::new("Request"),
            &Evidence::empty(),
        );
        assert_eq!((f[0][at("file_named")], f[1][at("file_named")]), (1.0, 0.0));
        assert!(aside("docs/examples/app.js") && aside("types/index.d.ts") && !aside("src/example.py"));
        let lines = |start, end| span(&Hit { start_line: start, end_line: end, ..Hit::default() });
        assert_eq!(lines(7, 7), 0.0);
        assert!(lines(1, 20) < lines(1, 60) && lines(1, 60) < 1.0);
        assert_eq!(lines(1, 1334), 1.0);
    }

    #[test]
    fn features_read_the_words_of_chunks_files_and_names() {
        let q = Question::new("how is the application generator configured");
        let evidence = Evidence {
            terms: ["applic", "generat", "configur"].map(String::from).to_vec(),
            idf: vec![1.0; 3],
            files: HashMap::from([("gen/app_generator.rb".to_string(), FileEvidence { counts: vec![2, 1, 0], length: 40 })]),
            mean_length: 40.0,
        };
        let mut a = hit("gen/app_generator.rb", "run", 1.0);
        a.content = "def run\n  generator.configure\nend".into();
        let pool = vec![a, hit("gen/app_generator.rb", "x", 0.5), hit("lib/other.rb", "y", 0.5)];
        let f = features(&pool, &q, &evidence);
        let at = |name: &str| Feature::named(name).expect("feature");
        assert!((f[0][at("chunk_words")] - 2.0 / 3.0).abs() < 1e-6, "{:?}", f[0]);
        assert!((f[0][at("file_words")] - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(f[2][at("file_words")], 0.0, "a file not read holds nothing");
        // `app` names a part of `application`, `generator` one of `app_generator`.
        assert!((f[0][at("name_parts")] - 2.0 / 3.0).abs() < 1e-6, "{:?}", name_parts("gen/app_generator.rb"));
        // Letter case as written tells the class `Session` from the function `session`.
        let q = Question::new("Session");
        let pool = vec![hit("s.py", "session", 1.0), hit("s.py", "Session", 1.0)];
        let f = features(&pool, &q, &Evidence::empty());
        assert_eq!((f[0][at("name_as_written")], f[1][at("name_as_written")]), (0.0, 1.0));
        assert_eq!((f[0][at("symbol_word")], f[1][at("symbol_word")]), (1.0, 1.0));
        // A qualified name names the member, not the class it starts with.
        let pool = vec![hit("m.py", "Invoice", 1.0), hit("m.py", "Invoice.tax", 1.0), hit("m.rs", "Ledger::tax", 1.0)];
        let f = features(&pool, &Question::new("where is Invoice.tax computed?"), &Evidence::empty());
        assert_eq!([f[0][at("name_as_written")], f[1][at("name_as_written")], f[2][at("name_as_written")]], [0.0, 1.0, 0.0]);
        assert!(names_as_written("fmt::format", "fmt::format", "format") && names_as_written("requests.get", "get", "get"));
        assert!(names_as_written("Session.send", "requests.Session.send", "send") && !names_as_written("Session.send", "Session", "Session"));
        assert_eq!(written_names("see `Foo\\Bar::baz()`, then Session."), ["see", "Foo\\Bar::baz", "then", "Session"]);
    }

    #[test]
    fn a_code_shaped_name_marks_its_only_file_s_definition() {
        let at = Feature::named("code_name").expect("feature");
        let marked =
            |question: &str, pool: &[Hit]| -> Vec<f32> { features(pool, &Question::new(question), &Evidence::empty()).iter().map(|f| f[at]).collect() };
        let pool = [hit("src/response.rs", "LimitedRead", 0.5), hit("src/response.rs", "LimitedRead::new", 0.9), hit("src/response.rs", "Response", 1.0)];
        assert_eq!(marked("LimitedRead type in the response module", &pool), [1.0, 0.0, 0.0]);
        // An English word is not a code-shaped name, however it is written.
        assert_eq!(marked("the Response type", &pool), [0.0; 3]);
        // A qualified name is; `new` alone would not be.
        assert_eq!(marked("what LimitedRead::new checks", &pool), [0.0, 1.0, 0.0]);
        // Defined in two files of the pool (an interface and its implementation): neither is marked.
        let pool = [hit("src/de/mod.rs", "MapAccess", 1.0), hit("src/private/de.rs", "MapAccess", 0.5), hit("src/de/mod.rs", "SeqAccess", 0.4)];
        assert_eq!(marked("MapAccess and SeqAccess for collections", &pool), [0.0, 0.0, 1.0]);
    }

    #[test]
    fn a_bare_name_s_first_definition_is_the_symbol_list_s() {
        let at = Feature::named("first_definition").expect("feature");
        let ranked = |path: &str, symbol: &str, symbol_rank: usize| {
            let mut h = hit(path, symbol, 1.0);
            h.kind = Kind::Class;
            h.signals.symbol = Some(symbol_rank);
            h
        };
        let marked =
            |question: &str, pool: &[Hit]| -> Vec<f32> { features(pool, &Question::new(question), &Evidence::empty()).iter().map(|f| f[at]).collect() };
        let pool =
            [ranked("Http/Client/Request.php", "Request", 2), ranked("Http/Request.php", "Request", 1), ranked("Support/Facades/Request.php", "Request", 3)];
        assert_eq!(marked("Request", &pool), [0.0, 1.0, 0.0]);
        // A question's symbol list keeps the index's order: nothing marked.
        assert_eq!(marked("how a Request reads its headers", &pool), [0.0; 3]);
        // One file defines it: nothing to choose.
        assert_eq!(marked("Request", &pool[1..2]), [0.0]);
        // A one-line binding of what another file defines is not a definition.
        let mut binding = ranked("lib/application.js", "compileQueryParser", 1);
        (binding.kind, binding.start_line, binding.end_line) = (Kind::Variable, 25, 25);
        let pool = [binding, ranked("lib/utils.js", "exports.compileQueryParser", 2), ranked("lib/router.js", "exports.compileQueryParser", 3)];
        assert_eq!(marked("compileQueryParser", &pool), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn a_folder_the_code_moved_on_from_is_superseded() {
        let asked = |q: &str| -> Vec<String> { q.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect() };
        let pool = ["pkg/v1/fields.py", "pkg/fields.py", "js/v3/types.ts", "js/v4/core/api.ts", "api/v2/users.py", "pkg/deprecated/decorator.py"];
        let q = asked("how are model fields declared");
        let marked: Vec<bool> = pool.iter().map(|p| superseded(p, &pool, &q)).collect();
        // v1 beside the current code and v3 beside v4 are; the newest version is not, nor a version alone, nor a
        // folder named deprecated (removed: it changed no dev question, 2026-12-02).
        assert_eq!(marked, [true, false, true, false, false, false]);
        // A version folder beside other code, but neither a newer version nor its own file's current copy, is current.
        assert!(!superseded("pkg/v1/schema.py", &pool, &q));
        // Asked for by its folder's name, or for old code, none is.
        assert!(!superseded("js/v3/types.ts", &pool, &asked("v3 error types")) && !superseded("pkg/v1/fields.py", &pool, &asked("the legacy fields")));
        assert!(superseded("js/v3/types.ts", &pool, &asked("v4 error types")));
        // A folder above the old one named by the question (the package's) does not ask for it.
        assert!(superseded("js/v3/types.ts", &pool, &asked("js array and tuple types")));
    }

    #[test]
    fn a_declaration_beside_its_implementation_declares_it() {
        let pool = [
            "lib/connect.h",
            "lib/connect.c",
            "lib/urldata.h",
            "src/Contracts/Events/Dispatcher.php",
            "src/Events/Dispatcher.php",
            "types/index.d.ts",
            "lib/index.js",
        ];
        let marked: Vec<bool> = pool.iter().map(|p| declares_other(p, &pool)).collect();
        assert_eq!(marked, [true, false, false, true, false, true, false]);
        // A header alone (a header-only library) declares nothing else.
        assert!(!declares_other("include/fmt/format.h", &["include/fmt/format.h", "include/fmt/core.h"]));
    }

    #[test]
    fn a_short_phrase_leads_with_its_file() {
        let at = Feature::named("lead_file").expect("feature");
        let lead = |question: &str| -> Vec<f32> {
            let pool = [hit("src/Job.kt", "Job.cancel", 1.0), hit("src/Job.kt", "Job", 0.9), hit("src/JobSupport.kt", "JobImpl", 0.8)];
            features(&pool, &Question::new(question), &Evidence::empty()).iter().map(|f| f[at]).collect()
        };
        assert_eq!(lead("Job interface and coroutine lifecycle"), [1.0, 0.0, 0.0]);
        // Not its first word, a lone name, or a long description: none.
        assert_eq!(lead("coroutine lifecycle of a Job"), [0.0; 3]);
        assert_eq!(lead("Job"), [0.0; 3]);
        assert_eq!(lead("job that cancels its children when one of them fails with an exception"), [0.0; 3]);
        // The project's name says which project: the next word leads.
        let with_project = |question: &str, project: &str| -> Vec<f32> {
            let pool = [hit("src/zls.zig", "Server", 1.0), hit("src/analysis.zig", "resolve", 0.9)];
            let mut q = Question::new(question);
            q.project = crate::query::question::name_words(project);
            features(&pool, &q, &Evidence::empty()).iter().map(|f| f[at]).collect()
        };
        assert_eq!(with_project("how zls analysis resolves imports", "zls"), [0.0, 1.0]);
        assert_eq!(with_project("how zls analysis resolves imports", "other"), [1.0, 0.0]);
    }

    #[test]
    fn a_phrase_reads_as_its_path() {
        let at = Feature::named("phrase_path").expect("feature");
        let pool = [
            hit("lib/rails/engine/configuration.rb", "Configuration", 1.0),
            hit("lib/rails/engine.rb", "Engine", 0.9),
            hit("lib/rails/engine/configuration.rb", "paths", 0.8),
        ];
        let read = |question: &str| -> Vec<f32> { features(&pool, &Question::new(question), &Evidence::empty()).iter().map(|f| f[at]).collect() };
        // The subject names the folder, a later word the file: its first candidate.
        assert_eq!(read("engine configuration and load paths"), [1.0, 0.0, 0.0]);
        assert_eq!(read("engines configured with load paths"), [1.0, 0.0, 0.0]);
        // The file's words in another order, or a long description: none.
        assert_eq!(read("configuration of the engine and load paths"), [0.0; 3]);
        assert_eq!(read("engine configuration that decides which load paths are eager loaded at boot"), [0.0; 3]);
    }

    #[test]
    fn the_topic_stays_on_the_files_best_candidate() {
        let pool = vec![hit("a.py", "x", 0.9), hit("a.py", "y", 0.8), hit("b.py", "z", 0.5)];
        let mut weights = PerFeature::ZERO;
        weights[Feature::Score] = 1.0;
        let mut feats: Vec<PerFeature> = [0.5, 1.0, 0.2]
            .iter()
            .map(|s| {
                let mut f = PerFeature::ZERO;
                (f[Feature::Score], f[Feature::TopicFile], f[Feature::WholeName]) = (*s, 0.7, 0.4);
                f
            })
            .collect();
        keep_file_features_on_best(&pool, &mut feats, &weights);
        // a.py's second candidate scores better without the file's features: it keeps them.
        assert_eq!(feats.iter().map(|f| f[Feature::TopicFile]).collect::<Vec<_>>(), [0.0, 0.7, 0.7]);
        assert_eq!(feats.iter().map(|f| f[Feature::WholeName]).collect::<Vec<_>>(), [0.0, 0.4, 0.4]);
        assert_eq!(Feature::ALL.iter().filter(|f| f.scope() == Scope::File).count(), 2);
    }

    #[test]
    fn a_question_naming_a_whole_file_marks_it() {
        let said = |q: &str, path: &str| names_whole_file(&content_words(q), path);
        // Every part of the name, each loosely: plurals, `-ing`, what it abbreviates.
        assert!(said("string utils for padding", "src/StringUtils.java"));
        assert!(said("how routing works", "src/Routing/Router.php"));
        assert!(!said("string padding", "src/StringUtils.java"), "utils is not said");
        // Every piece of a name with dashes, dots or pluses, not its first.
        assert!(!said("bash main entry point", "completion/bash-it.completion.bash"));
        assert!(!said("format errors", "include/fmt/format-inl.h"));
        assert!(said("format errors", "include/fmt/format.h"));
        // A name files of several folders have names none of them; a header beside its source is one folder.
        assert_eq!(names_in_several_folders(&["v4/core/schemas.ts", "v4/classic/schemas.ts", "v4/core/api.ts", "lib/connect.c", "lib/connect.h"]), ["schemas"]);

        // As a feature: the share of the question's words its file holds; the project's name names no file.
        let at = Feature::named("whole_name").expect("feature");
        let file = |counts: Vec<u32>| FileEvidence { counts, length: 100 };
        let files = HashMap::from([("src/analysis.zig".to_string(), file(vec![0, 2, 1])), ("src/zls.zig".to_string(), file(vec![3, 1, 0]))]);
        let evidence = Evidence { terms: ["zls", "analysi", "scope"].map(String::from).to_vec(), idf: vec![1.0; 3], files, mean_length: 100.0 };
        let mut q = Question::new("how zls analysis resolves a scope");
        q.project = crate::query::question::name_words("zls");
        let f = features(&[hit("src/analysis.zig", "resolve", 1.0), hit("src/zls.zig", "main", 0.9)], &q, &evidence);
        assert_eq!((f[0][at], f[1][at]), (2.0 / 3.0, 0.0));
    }

    #[test]
    fn a_whole_file_is_weighed_by_its_rare_words() {
        let file = |counts: Vec<u32>, length| FileEvidence { counts, length };
        let evidence = Evidence {
            terms: ["zebra", "schedul"].map(String::from).to_vec(),
            idf: vec![3.0, 0.5],
            files: HashMap::from([
                ("rare.py".to_string(), file(vec![2, 0], 50)),
                ("common.py".to_string(), file(vec![0, 6], 50)),
                ("long.py".to_string(), file(vec![2, 0], 500)),
            ]),
            mean_length: 200.0,
        };
        assert!(evidence.file_bm25("rare.py") > evidence.file_bm25("common.py"));
        assert!(evidence.file_bm25("rare.py") > evidence.file_bm25("long.py"), "the same words in a longer file weigh less");
        assert_eq!(evidence.file_bm25("absent.py"), 0.0);
    }

    #[test]
    fn a_file_already_placed_gives_way() {
        let q = Question::new("where is the session cookie jar merged");
        let hits = vec![hit("a.py", "x", 0.9), hit("a.py", "y", 0.8), hit("a.py", "z", 0.7), hit("b.py", "w", 0.5)];
        let mut weights = PerFeature::ZERO;
        weights[Feature::Score] = 1.0;
        let order = |repeat_of_file| -> Vec<String> {
            rerank(hits.clone(), crate::query::base::parameters::STAGE_POOL, &q, &Evidence::empty(), &Table { weights, repeat_of_file }, false)
                .into_iter()
                .filter_map(|h| h.symbol)
                .collect()
        };
        assert_eq!(order(0.0), ["x", "y", "z", "w"]);
        // Scores over the best: x 1, y .89, z .78, w .56; y loses 0.25 once x is placed, z twice that.
        assert_eq!(order(0.25), ["x", "y", "w", "z"]);
        assert_eq!(order(0.5), ["x", "w", "y", "z"]);
    }

    #[test]
    fn a_candidate_placed_by_structure_keeps_its_place() {
        let q = Question::new("how are redirects followed from start to finish");
        let mut step = hit("web/a.py", "next_location", 0.4);
        step.signals.callees = Some(1);
        let hits = vec![hit("web/a.py", "follow", 0.9), step, hit("web/b.py", "x", 0.3), hit("web/c.py", "y", 0.2)];
        // Weights that reverse the fused order move the others around it.
        let mut w = PerFeature::ZERO;
        w[Feature::Position] = -1.0;
        let order: Vec<String> =
            rerank(hits, crate::query::base::parameters::STAGE_POOL, &q, &Evidence::empty(), &Table { weights: w, repeat_of_file: 0.0 }, false)
                .into_iter()
                .filter_map(|h| h.symbol)
                .collect();
        assert_eq!(order, ["y", "next_location", "x", "follow"]);
    }

    #[test]
    fn the_fitted_stage_scores_short_questions_but_not_an_issue_report_or_a_graph_question() {
        let q = Question::new("Traceback (most recent call last):\n  File \"src/a.py\", line 3, in f\n    g()\nValueError: bad value\n\nThe function f fails when called with an empty list, which worked before the last release of the package.");
        assert!(!applies(&q), "an issue report keeps its grouped form");
        assert!(!applies(&Question::new("what calls res.location")), "a graph question: its walk answers it");
        assert!(applies(&Question::new("merge_cookies")));
    }
}

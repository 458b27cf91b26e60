//! `git rag impact`: what a change touches. For a change — the work tree
//! against the indexed commit, the staged files against HEAD, a commit
//! against its parent, `A..B`, or `A...B` from their merge base — it lists
//! the definitions the change makes (`changed.rs`), the code that depends
//! on them (`reach.rs`: callers, importers, subclasses, implementations,
//! overrides, to a depth) and the tests to run (`tests_to_run.rs`, with the
//! repository's co-change history, `history.rs`), each with its evidence
//! and a score (`weights.rs`); and, when asked, a token-budgeted review
//! context of them (`review.rs`).
//!
//! Both sides are read as the index holds the indexed commit with the
//! files that differ laid over it (`side.rs`): the same overlay of the
//! graph a work-tree query uses. So `impact A..B` with the index at A
//! equals the work-tree form of the same diff, and an unindexed commit
//! costs only the analysis of the files it changed.
//!
//! Invariants: nothing here writes to the index but the history cache
//! beside it; paths are repository-relative and lines 1-based inclusive
//! (a deleted definition's are its old side's).

use std::path::Path;
use std::time::Instant;

mod answer;
mod changed;
mod history;
mod lexical;
mod reach;
mod request;
mod review;
mod side;
mod tests_to_run;
pub mod weights;

use crate::git::Repo;
use crate::graph::{GraphReader, NodeKey};
use crate::stores::state::{IndexState, STATE_FILE};
pub use answer::{ChangeKind, ChangedCode, Evidence, Impact, ImpactedCode, Omitted, Relation, TestToRun, Tier};
pub use request::{ImpactError, ImpactRequest, ImpactTarget};
use side::{Side, Snapshot, Sources};

/// Changed files analysed at most; past it the answer says how many were left out.
pub const MAX_CHANGED_FILES: usize = 2_000;

/// The two sides a target compares, and its description.
fn sides(target: &ImpactTarget, src: &Sources) -> Result<(Snapshot, Snapshot, String), ImpactError> {
    let repo = src.repo;
    let short = |id: &gix::ObjectId| crate::query::short(&id.to_string()).to_string();
    let indexed = src.indexed_commit().map(|c| short(&c)).unwrap_or_default();
    let head = || repo.head_commit()?.ok_or_else(|| ImpactError::NoHead("HEAD".into()));
    let parent_side = |c: &gix::ObjectId| -> Result<Snapshot, ImpactError> { Ok(repo.first_parent(c)?.map_or(Snapshot::Empty, Snapshot::Commit)) };
    Ok(match target {
        ImpactTarget::WorkTree => (Snapshot::Indexed, Snapshot::WorkTree, format!("work tree against the indexed commit {indexed}")),
        ImpactTarget::Staged => {
            let head = head()?;
            (Snapshot::Commit(head), Snapshot::Staged, format!("staged files against HEAD {}", short(&head)))
        }
        ImpactTarget::Commit(rev) => {
            let c = repo.resolve(rev)?;
            (parent_side(&c)?, Snapshot::Commit(c), format!("commit {} against its parent", short(&c)))
        }
        ImpactTarget::Range { from, to, merge_base } => {
            let (a, b) = (repo.resolve(from)?, repo.resolve(to)?);
            let base = if *merge_base { repo.merge_base(&a, &b)?.map_or(Snapshot::Empty, Snapshot::Commit) } else { Snapshot::Commit(a) };
            (base, Snapshot::Commit(b), format!("{from}{}{to} ({}..{})", if *merge_base { "..." } else { ".." }, short(&a), short(&b)))
        }
    })
}

/// Answers `request` from the index in `index_dir`.
pub fn run(repo: &Repo, index_dir: &Path, request: &ImpactRequest) -> Result<Impact, ImpactError> {
    let started = Instant::now();
    let state = IndexState::load_for_queries(&index_dir.join(STATE_FILE))?;
    let Some((state, indexed)) = state.and_then(|s| s.last_commit.map(|c| (s, c))) else { return Err(ImpactError::NoIndex(index_dir.to_path_buf())) };
    let src = Sources::new(repo, &state, index_dir, &request.layer);
    let (old_snap, new_snap, target) = sides(&request.target, &src)?;
    let mut notices: Vec<String> = Vec::new();
    let message = message_of(repo, request, old_snap, new_snap, &mut notices);
    let (old, new) = (Side::read(old_snap, &src)?, Side::read(new_snap, &src)?);
    notices.extend(old.skipped.iter().chain(&new.skipped).map(|(p, why)| format!("{p}: not analysed ({why})")));
    let mut paths = side::changed_paths(&old, &new, &src);
    let over = old.over_cap + new.over_cap + paths.len().saturating_sub(MAX_CHANGED_FILES);
    if over > 0 {
        paths.truncate(MAX_CHANGED_FILES);
        notices.push(format!("{over} more changed files were left out: the first {} (in path order) were analysed", paths.len()));
    }
    let mut changed: Vec<ChangedCode> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for p in &paths {
        let (a, b) = (old.text(p, &src), new.text(p, &src));
        let (ca, cb) = (old.chunks(p, &src), new.chunks(p, &src));
        changed.extend(changed::in_file(p, a.as_deref().zip(ca.as_deref()), b.as_deref().zip(cb.as_deref())));
        if !tests_to_run::is_test_file(p) {
            lines.extend(changed::touched_lines(a.as_deref().unwrap_or(""), b.as_deref().unwrap_or("")));
        }
    }
    if documentation_only(&paths, &changed) {
        notices.push(format!("a documentation-only change ({} of documentation or comments): no code changed, no tests to run", files(paths.len())));
        let mut impact = Impact { documentation_only: true, ..listing_nothing(target, changed, notices) };
        if let Some(budget) = request.context_budget {
            impact.context = Some(review::context(&impact, &old, &new, &src, budget));
        }
        impact.took_ms = crate::progress::millis(started);
        return Ok(impact);
    }
    let configuration_only = configuration_only(&paths);
    if configuration_only {
        let what = "no code changed; its tests are found by what they share with it, less surely";
        notices.push(format!("a configuration-only change ({} of CI, build or tool configuration): {what}", files(paths.len())));
    }
    let names: Vec<&str> =
        changed.iter().filter(|c| !tests_to_run::is_test_file(&c.path)).filter_map(|c| c.symbol.as_deref()).map(crate::analysis::name::own_part).collect();
    let lexical = lexical::tests_like(index_dir, &lexical::query_text(&names, &lines), &paths).unwrap_or_else(|why| {
        notices.push(format!("tests were not ranked by what they say ({why})"));
        Default::default()
    });
    let reader = GraphReader::open(index_dir)?.ok_or(ImpactError::NoGraph)?;
    let depth = request.depth.max(1);
    let walked_depth = depth.max(2);
    let mut nb_new = reader.question_over(new.graph(&src)?)?;
    let mut walked = reach::walk(&mut nb_new, &new, &src, &starts(&changed, false), walked_depth)?;
    let old_starts = starts(&changed, true);
    if !old_starts.is_empty() {
        let mut nb_old = reader.question_over(old.graph(&src)?)?;
        let gone = reach::walk(&mut nb_old, &old, &src, &old_starts, walked_depth)?;
        merge(&mut walked, gone);
    }
    let history = history::History::load(repo, index_dir, &indexed);
    let inputs = tests_to_run::Inputs {
        changed: &changed,
        changed_paths: &paths,
        reached: &walked.reached,
        history: &history,
        lexical: &lexical,
        message: &message,
        configuration_only,
    };
    let tests = tests_to_run::rank(&mut nb_new, &inputs, request.limit)?;
    let impacted: Vec<ImpactedCode> = walked.reached.iter().filter(|r| r.depth <= depth).take(request.limit).map(impacted_code).collect();
    let mut impact = Impact {
        target,
        changed,
        documentation_only: false,
        configuration_only,
        impacted,
        tests,
        omitted: walked.omitted,
        notices,
        took_ms: 0.0,
        context: None,
    };
    if let Some(budget) = request.context_budget {
        impact.context = Some(review::context(&impact, &old, &new, &src, budget));
    }
    impact.took_ms = crate::progress::millis(started);
    Ok(impact)
}

/// "1 file", "3 files".
fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// An answer that reaches nothing and lists no tests.
fn listing_nothing(target: String, changed: Vec<ChangedCode>, notices: Vec<String>) -> Impact {
    Impact {
        target,
        changed,
        documentation_only: false,
        configuration_only: false,
        impacted: Vec::new(),
        tests: Vec::new(),
        omitted: Vec::new(),
        notices,
        took_ms: 0.0,
        context: None,
    }
}

/// What the change is for: `--message`, else the subjects of the commits
/// on the new side (down to the old side's commit), else nothing.
fn message_of(repo: &Repo, request: &ImpactRequest, old: Snapshot, new: Snapshot, notices: &mut Vec<String>) -> String {
    match (&request.message, new, old) {
        (Some(text), _, _) => text.clone(),
        (None, Snapshot::Commit(new), old) => {
            let stop = match old {
                Snapshot::Commit(c) => Some(c),
                _ => None,
            };
            repo.subjects(&new, stop.as_ref(), weights::MESSAGE_COMMITS)
                .unwrap_or_else(|why| {
                    notices.push(format!("the commits' messages were not read ({why})"));
                    Vec::new()
                })
                .join("\n")
        }
        (None, _, _) => String::new(),
    }
}

/// Whether the change is documentation alone: every changed file is
/// documentation or a changelog (by its path's role), or in a code file
/// only doc comments, comments and docstrings changed. Nothing runs differently, so
/// nothing is reached and no test is to run.
fn documentation_only(paths: &[String], changed: &[ChangedCode]) -> bool {
    use crate::analysis::role::Role;
    let docs = |p: &String| matches!(Role::of(p), Role::Docs | Role::Changelog);
    let code_says_only_docs = |p: &String| {
        let mine: Vec<&ChangedCode> = changed.iter().filter(|c| &c.path == p).collect();
        !mine.is_empty() && mine.iter().all(|c| c.change.runs_as_before())
    };
    !paths.is_empty() && paths.iter().all(|p| docs(p) || code_says_only_docs(p))
}

/// Whether the change is configuration alone: every changed file is CI,
/// build or tool configuration, a template, a generated lock file, or
/// documentation beside them (by its path's role), and one at least is not
/// documentation. Its tests are calibrated apart (`tests_to_run::calibrate`).
fn configuration_only(paths: &[String]) -> bool {
    use crate::analysis::role::Role;
    let configuration = |p: &String| matches!(Role::of(p), Role::Ci | Role::Config | Role::Template | Role::Generated);
    let documentation = |p: &String| matches!(Role::of(p), Role::Docs | Role::Changelog);
    paths.iter().any(configuration) && paths.iter().all(|p| configuration(p) || documentation(p))
}

/// Where the walks start: on the new side, what the change keeps or adds
/// (and a changed module's file); on the old side, what it removes (a
/// deleted definition or file, a renamed one's old name).
fn starts(changed: &[ChangedCode], old_side: bool) -> Vec<reach::Start> {
    let mut out = Vec::new();
    for c in changed {
        let key = |q: &str| NodeKey::Symbol { path: c.path.clone(), qualified_name: q.to_string() };
        match (&c.symbol, old_side) {
            (Some(q), false) if !c.gone() && !c.change.runs_as_before() => out.push(reach::Start { key: key(q) }),
            (Some(q), true) if c.gone() => out.push(reach::Start { key: key(q) }),
            (Some(_), true) if c.change == ChangeKind::Renamed => out.extend(c.previous.as_deref().map(|p| reach::Start { key: key(p) })),
            (None, false) if c.change == ChangeKind::Module => out.push(reach::Start { key: NodeKey::File(c.path.clone()) }),
            (None, true) if c.change == ChangeKind::Deleted => out.push(reach::Start { key: NodeKey::File(c.path.clone()) }),
            _ => {}
        }
    }
    out
}

/// Adds the old side's reached code to the new side's, keeping the better of each.
fn merge(into: &mut reach::Walked, other: reach::Walked) {
    for r in other.reached {
        match into.reached.iter_mut().find(|x| x.key == r.key) {
            Some(x) if x.score >= r.score => {}
            Some(x) => *x = r,
            None => into.reached.push(r),
        }
    }
    into.omitted.extend(other.omitted);
    into.reached.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.depth.cmp(&b.depth)).then_with(|| a.key.cmp(&b.key)));
}

/// A score as the answer shows it: four decimals (the same in every frontend's JSON).
fn rounded(score: f32) -> f64 {
    (f64::from(score) * 1e4).round() / 1e4
}

fn impacted_code(r: &reach::Reached) -> ImpactedCode {
    ImpactedCode {
        path: r.path().to_string(),
        symbol: r.symbol().map(str::to_string),
        kind: r.kind,
        start_line: r.start_line,
        end_line: r.end_line,
        relation: r.relation,
        depth: r.depth,
        score: rounded(r.score),
        reaches: r.reaches.clone(),
        evidence: r.evidence.clone(),
        candidates: r.candidates,
    }
}

//! Graph answers: pick the subject(s) a graph question names among
//! same-named symbols, then walk callers, callees or imports from them.

use crate::query::base::parameters::{CALLEE_DEPTH, SUBJECT_ANY_CASE, SUBJECT_FILE, SUBJECT_FITS_RELATION, SUBJECT_LOOSE, SUBJECT_OWN_NAME, SUBJECT_QUALIFIED};
use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use petgraph::Direction;

use super::layered::Keyword;
use crate::analysis::kind::Kind;
use crate::graph::{EdgeKind, Graph, Neighbourhood, NodeKey};
use crate::query::answer::{Hit, Result};
use crate::query::options::{PathFilter, QueryOptions};
use crate::query::question::intent::{GraphAsk, Relation};
use crate::query::retrieve::Walk;

/// A graph question's answer from `nb` (the index's graph, with the work
/// tree's over it when `keyword` has a layer): the subjects it names, what
/// the relation reaches from them (nearest first) as hits of `keyword`'s
/// side that holds each path, and the subjects' names.
pub(crate) fn graph_list(mut nb: Neighbourhood, keyword: &Keyword, ask: &GraphAsk, walk: Walk, opts: &QueryOptions) -> Result<(Vec<Hit>, Vec<String>)> {
    let subjects = pick_subjects(&mut nb, ask)?;
    // The direct callers, as many as the list takes, read in the list's
    // order (a much-called name's callers are thousands of files).
    if !walk.neighbours && ask.relation == Relation::Callers && walk.depth <= 1 {
        let subject_paths: HashSet<String> = subjects.iter().filter_map(|s| node_path(nb.graph(), *s)).collect();
        let order = |p: &str| (is_document(p), crate::analysis::role::Role::of(p).is_test_side(), !subject_paths.contains(p), p.to_string());
        let untested = |g: &Graph, n: &NodeIndex| !g.graph[*n].key.role().is_test_side();
        let (found, all) =
            nb.incoming_in_order(&subjects, &[EdgeKind::Calls], order, |g, found| found.iter().filter(|n| untested(g, n)).count() >= opts.limit)?;
        let listed = list_reached(&nb, keyword, ask, walk, &subjects, found.into_iter().map(|n| (n, 1)).collect(), opts)?;
        // Test code goes last: the list is the whole one's when enough code
        // that is not passed the filters (else every caller is read).
        let code = listed.0.iter().filter(|h| !crate::analysis::role::Role::of_code(&h.path, h.symbol.as_deref()).is_test_side()).count();
        if all || code >= opts.limit {
            return Ok(listed);
        }
    }
    let reached = reach(&mut nb, ask, walk, &subjects)?;
    list_reached(&nb, keyword, ask, walk, &subjects, reached, opts)
}

/// A document whose examples call the subject ([`crate::analysis::tags::fenced_calls`]):
/// listed after the code that does.
fn is_document(path: &str) -> bool {
    crate::analysis::lang::Language::from_path(path) == crate::analysis::lang::Language::Markdown
}

/// The nodes the walk reaches from the subjects, with their depth.
fn reach(nb: &mut Neighbourhood, ask: &GraphAsk, walk: Walk, subjects: &[NodeIndex]) -> Result<Vec<(NodeIndex, usize)>> {
    let Walk { neighbours, depth, .. } = walk;
    let subjects = subjects.to_vec();
    let depth = depth.max(1);
    let mut reached: Vec<(petgraph::stable_graph::NodeIndex, usize)> = Vec::new();
    let relations: Vec<Relation> = if neighbours { vec![Relation::Callers, Relation::Callees] } else { vec![ask.relation] };
    for relation in relations {
        match relation {
            Relation::Callers => reached.extend(nb.walk(&subjects, &[EdgeKind::Calls], Direction::Incoming, depth)?),
            Relation::Callees => {
                // A function acts through its nested helpers too.
                let graph = nb.graph();
                let mut from = subjects.clone();
                for s in &subjects {
                    from.extend(graph.descendants(*s).into_iter().filter(|d| graph.graph[*d].kind.is_callable()));
                }
                reached.extend(nb.walk(&from, &[EdgeKind::Calls], Direction::Outgoing, depth)?);
            }
            Relation::Implementers => {
                reached.extend(implementers(nb, &subjects, depth)?);
                reached.extend(go_implementers(nb, ask, &subjects)?);
            }
            Relation::Importers | Relation::Imports => {
                let files: Vec<_> = subjects.iter().filter_map(|s| file_of(nb.graph(), *s)).collect();
                let dir = if relation == Relation::Importers { Direction::Incoming } else { Direction::Outgoing };
                reached.extend(nb.walk(&files, &[EdgeKind::Imports], dir, depth)?);
            }
        }
    }
    Ok(reached)
}

/// The reached nodes in the list's order, as hits (what the options let through).
fn list_reached(
    nb: &Neighbourhood,
    keyword: &Keyword,
    ask: &GraphAsk,
    walk: Walk,
    subjects: &[NodeIndex],
    mut reached: Vec<(NodeIndex, usize)>,
    opts: &QueryOptions,
) -> Result<(Vec<Hit>, Vec<String>)> {
    let Walk { neighbours, with_subject, .. } = walk;
    let graph = nb.graph();
    let names: Vec<String> = subjects.iter().map(|ix| describe(graph, *ix)).collect();
    let subject_paths: HashSet<String> = subjects.iter().filter_map(|s| node_path(graph, *s)).collect();
    // Nearest first, test code after the code it tests (a Rust module's
    // `mod tests` in the subject's own file too: ureq's "callers of
    // PoolKey::from_parts" 0.618 -> 1.000). Callers: the subject's own file
    // first, then by place.
    // Callees: the bigger first, wherever they are; what a function does is
    // in the callees that do work, not in its accessors and one-line
    // wrappers (graph questions on the dev kit, ureq and cobra: nDCG@10
    // 0.879 -> 0.909).
    let by_size = !neighbours && ask.relation == Relation::Callees;
    reached.sort_by_cached_key(|(ix, depth)| {
        let p = node_path(graph, *ix).unwrap_or_default();
        let node = &graph.graph[*ix];
        let (elsewhere, size) = match by_size {
            true => (false, node.end_line.saturating_sub(node.start_line)),
            false => (!subject_paths.contains(&p), 0),
        };
        (*depth, is_document(&p), graph.graph[*ix].key.role().is_test_side(), elsewhere, std::cmp::Reverse(size), p, node.start_line)
    });
    let mut order: Vec<petgraph::stable_graph::NodeIndex> = Vec::new();
    let first_depth_end = reached.iter().position(|(_, d)| *d > 1).unwrap_or(reached.len());
    order.extend(reached[..first_depth_end].iter().map(|(n, _)| *n));
    if with_subject {
        order.extend(subjects.iter().copied());
    }
    order.extend(reached[first_depth_end..].iter().map(|(n, _)| *n));
    let subject_names: Vec<String> = subjects.iter().map(|ix| short_name(graph, *ix)).filter(|n| !n.is_empty()).collect();
    let paths = PathFilter::new(opts)?;
    let mut seen = HashSet::new();
    let mut hits = Vec::new();
    for ix in order {
        if !seen.insert(ix) || hits.len() >= opts.limit {
            continue;
        }
        let hit = match &graph.graph[ix].key {
            NodeKey::Symbol { path, qualified_name } => keyword.symbol_hit(path, qualified_name)?,
            // A document (no outline) calls from the section that names the subject.
            NodeKey::File(path) => match keyword.file_hit(path)? {
                Some(hit) => Some(hit),
                None => keyword.chunk_naming(path, &subject_names)?,
            },
            _ => None,
        };
        let Some(mut hit) = hit else { continue };
        if !paths.matches(&hit.path) || opts.lang.is_some_and(|l| l != hit.language) || opts.kind.is_some_and(|k| k != hit.kind) {
            continue;
        }
        hit.rank = hits.len() + 1;
        hit.score = 1.0 / hit.rank as f32;
        hit.signals.graph = Some(hit.rank);
        hits.push(hit);
    }
    Ok((hits, names))
}

/// The types that extend or implement the subjects (nearest first), each
/// followed by its members that implement a member of the subject (Rust's
/// `impl Resolver for StdResolver { fn resolve … }`, an overriding method).
fn implementers(nb: &mut Neighbourhood, subjects: &[NodeIndex], depth: usize) -> crate::graph::Result<Vec<(NodeIndex, usize)>> {
    let required: HashSet<String> = subjects.iter().flat_map(|s| nb.graph().descendants(*s)).map(|d| short_name(nb.graph(), d)).collect();
    let mut out = Vec::new();
    for (ty, d) in nb.walk(subjects, &[EdgeKind::Inherits], Direction::Incoming, depth)? {
        out.push((ty, d));
        let graph = nb.graph();
        let members = graph.walk(&[ty], &[EdgeKind::Contains], Direction::Outgoing, 1);
        out.extend(members.into_iter().filter(|(m, _)| required.contains(&short_name(graph, *m))).map(|(m, _)| (m, d)));
    }
    Ok(out)
}

/// Go satisfies an interface by method set, with no declaration to follow:
/// the types of Go files whose methods cover the interface's. Those are the
/// members of a Go interface the repository defines or, when the question
/// names one of the standard library's (`error`, `io.Reader`) and no Go
/// interface of the repository answers to the name, its well-known methods.
/// Only a file that defines one of those methods can hold such a type: those
/// files are loaded, and their types checked.
fn go_implementers(nb: &mut Neighbourhood, ask: &GraphAsk, subjects: &[NodeIndex]) -> crate::graph::Result<Vec<(NodeIndex, usize)>> {
    let is_go = |graph: &Graph, ix: NodeIndex| node_path(graph, ix).is_some_and(|p| p.ends_with(".go"));
    let graph = nb.graph();
    let go_interfaces: Vec<NodeIndex> = subjects.iter().copied().filter(|s| is_go(graph, *s) && graph.graph[*s].kind == Kind::Interface).collect();
    let mut required: HashSet<String> = go_interfaces.iter().flat_map(|s| graph.descendants(*s)).map(|d| short_name(graph, d)).collect();
    if go_interfaces.is_empty() {
        required.extend(ask.subject.iter().find_map(|w| go_std_interface(w)).unwrap_or_default().iter().map(|m| m.to_string()));
    }
    let Some(method) = required.iter().min().cloned() else { return Ok(Vec::new()) };
    nb.load_definitions_of(&method)?;
    let graph = nb.graph();
    let mut out = Vec::new();
    let mut types: Vec<NodeIndex> = graph
        .graph
        .node_indices()
        .filter(|ix| is_go(graph, *ix) && matches!(graph.graph[*ix].kind, Kind::Class | Kind::Type) && !subjects.contains(ix))
        .collect();
    // In key order, as a walk of the whole graph would list them.
    types.sort_by(|a, b| graph.graph[*a].key.cmp(&graph.graph[*b].key));
    for ix in types {
        let members = graph.walk(&[ix], &[EdgeKind::Contains], Direction::Outgoing, 1);
        let names: HashSet<String> = members.iter().map(|(m, _)| short_name(graph, *m)).collect();
        if required.iter().all(|r| names.contains(r)) {
            out.push((ix, 1));
            out.extend(members.into_iter().filter(|(m, _)| required.contains(&short_name(graph, *m))).map(|(m, _)| (m, 1)));
        }
    }
    Ok(out)
}

/// A symbol's short name (empty for files, stubs and externals).
fn short_name(graph: &Graph, ix: NodeIndex) -> String {
    match &graph.graph[ix].key {
        NodeKey::Symbol { qualified_name, .. } => crate::analysis::name::canonical_own_part(qualified_name),
        _ => String::new(),
    }
}

/// The methods of the Go standard library's most implemented interfaces.
fn go_std_interface(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "error" => &["Error"],
        "Stringer" | "fmt.Stringer" => &["String"],
        "io.Reader" => &["Read"],
        "io.Writer" => &["Write"],
        "io.Closer" => &["Close"],
        "io.ReadCloser" => &["Read", "Close"],
        "sort.Interface" => &["Len", "Less", "Swap"],
        "http.Handler" => &["ServeHTTP"],
        _ => return None,
    })
}

pub(crate) fn node_path(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> Option<String> {
    match &graph.graph[ix].key {
        NodeKey::File(p) | NodeKey::Symbol { path: p, .. } => Some(p.clone()),
        _ => None,
    }
}

pub(crate) fn file_of(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> Option<petgraph::stable_graph::NodeIndex> {
    graph.node(&NodeKey::File(node_path(graph, ix)?))
}

pub(crate) fn describe(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> String {
    match &graph.graph[ix].key {
        NodeKey::File(p) => p.clone(),
        NodeKey::Symbol { path, qualified_name } => format!("{qualified_name} ({path}:{})", graph.graph[ix].start_line),
        NodeKey::Stub(s) | NodeKey::External(s) => s.clone(),
    }
}

/// The definitions a graph question is about. Each candidate word is matched
/// against symbol names; candidates score for an exact match and for the
/// other words of the query appearing in their path or name; the best tier wins.
pub fn pick_subjects(nb: &mut Neighbourhood, ask: &GraphAsk) -> crate::graph::Result<Vec<petgraph::stable_graph::NodeIndex>> {
    let mut scored: Vec<(f32, petgraph::stable_graph::NodeIndex)> = Vec::new();
    let all_words: Vec<String> = ask.subject.iter().chain(&ask.context).map(|w| w.to_lowercase()).collect();
    for word in &ask.subject {
        // A file: `app/utils.py`, or just `utils.py`.
        if crate::analysis::lang::Language::from_path(word) != crate::analysis::lang::Language::Text || word.contains('/') {
            scored.extend(nb.files_named(word)?.into_iter().map(|ix| (SUBJECT_FILE, ix)));
        }
        let found = nb.find_symbols(word)?;
        let graph = nb.graph();
        for ix in found {
            let NodeKey::Symbol { path, qualified_name } = &graph.graph[ix].key else { continue };
            let mut score = if qualified_name == word {
                SUBJECT_QUALIFIED
            } else if qualified_name.eq_ignore_ascii_case(word) {
                SUBJECT_ANY_CASE
            } else if crate::analysis::name::canonical_own_part(qualified_name) == *word {
                SUBJECT_OWN_NAME
            } else {
                SUBJECT_LOOSE
            };
            let haystack = format!("{} {}", path.to_lowercase(), qualified_name.to_lowercase());
            for other in all_words.iter().filter(|w| !w.eq_ignore_ascii_case(word)) {
                let stem = other.trim_end_matches('s');
                if stem.len() >= 3 && haystack.contains(stem) {
                    score += 1.0;
                }
            }
            if crate::analysis::role::Role::of(path).is_test_side() {
                score -= 1.0;
            }
            let fits = match ask.relation {
                Relation::Importers | Relation::Imports => true,
                Relation::Implementers => graph.graph[ix].kind.is_type_like(true),
                Relation::Callers | Relation::Callees => graph.graph[ix].kind.is_callable(),
            };
            if fits {
                score += SUBJECT_FITS_RELATION;
            }
            scored.push((score, ix));
        }
    }
    let Some(best) = scored.iter().map(|(s, _)| *s).reduce(f32::max) else { return Ok(Vec::new()) };
    let graph = nb.graph();
    let mut out: Vec<_> = scored.into_iter().filter(|(s, _)| *s >= best).map(|(_, ix)| ix).collect();
    out.sort_by(|a, b| graph.graph[*a].key.cmp(&graph.graph[*b].key));
    out.dedup();
    Ok(out)
}

/// What the best candidates of a concept question call, most called first,
/// then the bigger first. A behaviour asked about in words is often
/// reached through several thin entry points (`GenZshCompletion`,
/// `GenZshCompletionFile`, …) that the question's words match, while the
/// definition that does the work (`genZshComp`) is named in none of them:
/// what several candidates call is where they meet. Tests are left out.
pub(crate) fn callee_votes(mut nb: Neighbourhood, keyword: &Keyword, seeds: &[Hit], opts: &QueryOptions) -> Result<Vec<Hit>> {
    // Node -> how many seeds call it.
    let mut votes: HashMap<NodeIndex, usize> = HashMap::new();
    for seed in seeds {
        let Some(name) = seed.symbol.as_deref() else { continue };
        let Some(ix) = nb.node(&NodeKey::Symbol { path: seed.path.clone(), qualified_name: name.to_string() })? else { continue };
        let graph = nb.graph();
        // A function acts through its nested helpers too.
        let mut from = vec![ix];
        from.extend(graph.descendants(ix).into_iter().filter(|d| graph.graph[*d].kind.is_callable()));
        let mut counted = HashSet::new();
        for (callee, _) in nb.walk(&from, &[EdgeKind::Calls], Direction::Outgoing, 1)? {
            if !from.contains(&callee) && counted.insert(callee) {
                *votes.entry(callee).or_default() += 1;
            }
        }
    }
    let graph = nb.graph();
    let size = |ix: NodeIndex| graph.graph[ix].end_line.saturating_sub(graph.graph[ix].start_line);
    let mut ranked: Vec<(NodeIndex, usize)> = votes.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(size(b.0).cmp(&size(a.0))).then_with(|| graph.graph[a.0].key.cmp(&graph.graph[b.0].key)));
    let mut hits = Vec::new();
    for (ix, _) in ranked {
        if hits.len() >= opts.limit.min(CALLEE_DEPTH) {
            break;
        }
        let NodeKey::Symbol { path, qualified_name } = &graph.graph[ix].key else { continue };
        if crate::analysis::role::Role::of(path).is_test_side() {
            continue;
        }
        if let Some(mut hit) = keyword.symbol_hit(path, qualified_name)? {
            hit.rank = hits.len() + 1;
            hit.score = 1.0 / hit.rank as f32;
            hit.signals.callees = Some(hit.rank);
            hits.push(hit);
        }
    }
    Ok(hits)
}

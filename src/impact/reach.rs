//! The code a change reaches: the graph's edges into each changed
//! definition, walked backwards breadth first — callers, subclasses and
//! implementations, overrides of a changed method, files importing a
//! changed name — to a depth, each reached definition with the evidence
//! line and a score that falls with depth and fan-out (`weights.rs`).
//! A definition with more dependents than a hop lists says so ([`Omitted`]).

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use petgraph::Direction;

use super::side::{Side, Sources};
use super::weights::{BY_NAME_MAX_DEFINITIONS, CODE_FANOUT, DEPTH_DECAY, FANOUT_SLOPE, FRONTIER, TEST_FANOUT};
use super::{Evidence, Omitted, Relation};
use crate::analysis::kind::Kind;
use crate::analysis::lang;
use crate::analysis::name::{own_part as own_name, parent as parent_of};
use crate::graph::{EdgeKind, GraphError, Neighbourhood, NodeKey};

/// Where a walk starts: a changed definition (or file) of one side.
pub(crate) struct Start {
    pub key: NodeKey,
}

/// A definition (or file) the walk reached, the best way it was reached.
#[derive(Debug, Clone)]
pub(crate) struct Reached {
    pub key: NodeKey,
    pub kind: Kind,
    pub start_line: usize,
    pub end_line: usize,
    pub relation: Relation,
    pub depth: usize,
    pub score: f32,
    /// What it depends on: the changed (or reached) definition one hop nearer.
    pub reaches: String,
    /// The name its evidence line says (a call's callee, a base, an import).
    pub names: String,
    pub evidence: Option<Evidence>,
    pub test: bool,
    /// For a call by name, the definitions of the name it may mean.
    pub candidates: Option<usize>,
}

impl Reached {
    pub fn path(&self) -> &str {
        key_path(&self.key)
    }

    pub fn symbol(&self) -> Option<&str> {
        match &self.key {
            NodeKey::Symbol { qualified_name, .. } => Some(qualified_name),
            _ => None,
        }
    }
}

pub(crate) fn key_path(key: &NodeKey) -> &str {
    match key {
        NodeKey::File(p) | NodeKey::Symbol { path: p, .. } => p,
        NodeKey::Stub(n) | NodeKey::External(n) => n,
    }
}

/// One dependent of a node: who, by which relation, naming what.
struct Dependent {
    node: NodeIndex,
    relation: Relation,
    names: String,
    /// The evidence line where it is known without searching (an import's, an override's).
    line: Option<usize>,
    /// 1 for a resolved relation; for a call by name ([`callers_by_name`]),
    /// the definitions it may mean.
    candidates: usize,
}

/// What a walk found, by node.
pub(crate) struct Walked {
    pub reached: Vec<Reached>,
    pub omitted: Vec<Omitted>,
}

/// Walks from `starts` on one side's graph to `depth`.
pub(crate) fn walk(nb: &mut Neighbourhood, side: &Side, src: &Sources, starts: &[Start], depth: usize) -> Result<Walked, GraphError> {
    let start_keys: HashSet<&NodeKey> = starts.iter().map(|s| &s.key).collect();
    let mut best: HashMap<NodeKey, (Reached, Option<usize>)> = HashMap::new();
    let mut omitted = Vec::new();
    let mut frontier: Vec<(NodeIndex, f32)> = Vec::new();
    for s in starts {
        if let Some(ix) = nb.node(&s.key)? {
            frontier.push((ix, 1.0));
        }
    }
    for level in 1..=depth {
        frontier.sort_by(|a, b| b.1.total_cmp(&a.1));
        frontier.dedup_by_key(|f| f.0);
        frontier.truncate(FRONTIER);
        let mut next: Vec<(NodeIndex, f32)> = Vec::new();
        for (ix, score) in std::mem::take(&mut frontier) {
            let (found, left_out) = dependents(nb, ix, level)?;
            let via = describe(&nb.graph().graph[ix].key);
            if left_out > 0 {
                omitted.push(Omitted {
                    path: key_path(&nb.graph().graph[ix].key).to_string(),
                    symbol: symbol_of(&nb.graph().graph[ix].key),
                    listed: found.len(),
                    more: left_out,
                });
            }
            // A call by name counts for the share of it that is this node's.
            let certain = found.iter().filter(|d| d.candidates == 1).map(|d| d.node).collect::<HashSet<_>>().len();
            let by_name: f32 = found.iter().filter(|d| d.candidates > 1).map(|d| 1.0 / d.candidates as f32).sum();
            let distinct = (certain + by_name.ceil() as usize).max(1) + left_out;
            let share = score * fanout(distinct) * if level > 1 { DEPTH_DECAY } else { 1.0 };
            for d in found {
                let node = &nb.graph().graph[d.node];
                if start_keys.contains(&node.key) {
                    continue;
                }
                let s = share * d.relation.weight() * by_name_share(d.candidates);
                if best.get(&node.key).is_some_and(|(r, _)| r.score >= s) {
                    continue;
                }
                let test = node.key.role().is_test_side();
                let reached = Reached {
                    key: node.key.clone(),
                    kind: node.kind,
                    start_line: node.start_line,
                    end_line: node.end_line,
                    relation: d.relation,
                    depth: level,
                    score: s,
                    reaches: via.clone(),
                    names: d.names,
                    evidence: None,
                    test,
                    candidates: (d.candidates > 1).then_some(d.candidates),
                };
                if !test && matches!(node.key, NodeKey::Symbol { .. }) {
                    next.push((d.node, s));
                }
                best.insert(node.key.clone(), (reached, d.line));
            }
        }
        frontier = next;
    }
    let mut reached: Vec<Reached> = best
        .into_values()
        .map(|(mut r, line)| {
            r.evidence = evidence(side, src, &r, line);
            r
        })
        .collect();
    reached.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.depth.cmp(&b.depth)).then_with(|| a.key.cmp(&b.key)));
    Ok(Walked { reached, omitted })
}

fn fanout(n: usize) -> f32 {
    1.0 / (1.0 + FANOUT_SLOPE * (n.max(1) as f32).ln())
}

fn describe(key: &NodeKey) -> String {
    match key {
        NodeKey::Symbol { qualified_name, .. } => qualified_name.clone(),
        other => key_path(other).to_string(),
    }
}

fn symbol_of(key: &NodeKey) -> Option<String> {
    match key {
        NodeKey::Symbol { qualified_name, .. } => Some(qualified_name.clone()),
        _ => None,
    }
}

/// The dependents of `ix` one hop out (those listed, and how many more
/// there are past the fan-out caps): for a file, the files importing it;
/// for a definition, its callers, subclasses and implementations, the
/// overrides of a method, and (on the first hop) files importing its name.
fn dependents(nb: &mut Neighbourhood, ix: NodeIndex, level: usize) -> Result<(Vec<Dependent>, usize), GraphError> {
    let key = nb.graph().graph[ix].key.clone();
    let mut out = Vec::new();
    let mut left_out = 0;
    match &key {
        NodeKey::File(_) => left_out += incoming(nb, ix, &[EdgeKind::Imports], &mut out)?,
        NodeKey::Symbol { path, qualified_name } => {
            left_out += incoming(nb, ix, &[EdgeKind::Calls, EdgeKind::Inherits], &mut out)?;
            let (implementers, more) = structural_implementations(nb, ix)?;
            left_out += more;
            for (implementer, _) in implementers {
                out.push(Dependent {
                    node: implementer,
                    relation: Relation::Implements,
                    names: own_name(qualified_name).to_string(),
                    line: None,
                    candidates: 1,
                });
            }
            out.extend(overrides(nb, path, qualified_name)?);
            if nb.graph().graph[ix].kind == Kind::Method {
                let (by_name, more) = callers_by_name(nb, qualified_name)?;
                out.extend(by_name);
                left_out += more;
            }
            if level == 1 {
                out.extend(importers_naming(nb, path, own_name(qualified_name))?);
            }
        }
        NodeKey::Stub(_) | NodeKey::External(_) => {}
    }
    Ok((out, left_out))
}

/// The sources of `kinds` edges into `ix`, code and tests each up to its
/// cap (read in path order); returns how many were left out.
fn incoming(nb: &mut Neighbourhood, ix: NodeIndex, kinds: &[EdgeKind], out: &mut Vec<Dependent>) -> Result<usize, GraphError> {
    incoming_where(nb, ix, kinds, |_, _, _| true, 1, out)
}

/// [`incoming`] of the edges whose source file and reference as written
/// `keep` takes, each a dependent among `candidates`.
fn incoming_where(
    nb: &mut Neighbourhood,
    ix: NodeIndex,
    kinds: &[EdgeKind],
    mut keep: impl FnMut(&mut Neighbourhood, NodeIndex, &str) -> bool,
    candidates: usize,
    out: &mut Vec<Dependent>,
) -> Result<usize, GraphError> {
    let enough = |g: &crate::graph::Graph, found: &[NodeIndex]| {
        let tests = found.iter().filter(|n| g.graph[**n].key.role().is_test_side()).count();
        tests >= TEST_FANOUT && found.len() - tests >= CODE_FANOUT
    };
    let (found, all) = nb.incoming_in_order(&[ix], kinds, |p: &str| p.to_string(), enough)?;
    let g = &nb.graph().graph;
    let target_is_interface = g[ix].kind == Kind::Interface;
    let (mut code, mut tests, mut left_out) = (0, 0, 0);
    let mut listed: Vec<(NodeIndex, Relation, String)> = Vec::new();
    for source in found {
        let (counter, cap) = if g[source].key.role().is_test_side() { (&mut tests, TEST_FANOUT) } else { (&mut code, CODE_FANOUT) };
        if *counter >= cap {
            left_out += 1;
            continue;
        }
        *counter += 1;
        let Some(edge) = g.edges_connecting(source, ix).find(|e| kinds.contains(&e.weight().kind)) else { continue };
        let relation = match edge.weight().kind {
            EdgeKind::Calls => Relation::Calls,
            EdgeKind::Imports => Relation::Imports,
            EdgeKind::Inherits if target_is_interface => Relation::Implements,
            _ => Relation::Inherits,
        };
        listed.push((source, relation, edge.weight().raw.clone()));
    }
    for (source, relation, raw) in listed {
        if !keep(nb, source, &raw) {
            continue;
        }
        // An import's evidence is its own statement, as the file's facts place it.
        let line = match relation {
            Relation::Imports => import_line(nb, source, &raw)?,
            _ => None,
        };
        out.push(Dependent { node: source, relation, names: own_name(&raw).to_string(), line, candidates });
    }
    // Past the read: at least one more, their number unknown without reading them.
    Ok(left_out + usize::from(!all))
}

/// The calls of a changed method's name that the graph could not resolve
/// because their receiver's type is unknown (`x.save()` with `x` untyped):
/// each may call this method or another of the name, so each is listed
/// with how many definitions it may mean, and weighs that much less
/// ([`by_name_share`]). Not listed: calls without a receiver or through
/// `self`/`this` (the class's own methods resolve), through a type other
/// than the method's own (`Doc.save` for `State::save`), or through a
/// module the calling file imports (`os.path.join`, `http.Get`), or in a
/// document's code fence. A name defined more than [`BY_NAME_MAX_DEFINITIONS`] times lists none.
fn callers_by_name(nb: &mut Neighbourhood, qualified_name: &str) -> Result<(Vec<Dependent>, usize), GraphError> {
    let name = own_name(qualified_name).to_string();
    let owner = parent_of(qualified_name).map(|p| own_name(p).to_string());
    let definitions = nb.count_definitions(&name)?;
    if !(2..=BY_NAME_MAX_DEFINITIONS).contains(&definitions) {
        return Ok((Vec::new(), 0));
    }
    let stub = nb.unresolved(&name);
    let mut out = Vec::new();
    let keep = |nb: &mut Neighbourhood, source: NodeIndex, raw: &str| -> bool {
        let canonical = crate::analysis::name::canonical(raw);
        let Some(receiver) = parent_of(&canonical).map(own_name) else { return false };
        if ["self", "this", "$this", "cls", "super", "Self", "static", "parent"].contains(&receiver) {
            return false;
        }
        if receiver.starts_with(char::is_uppercase) {
            // A type (written, or the receiver's as the analysis knew it): this method's own.
            return owner.as_deref() == Some(receiver);
        }
        let file = key_path(&nb.graph().graph[source].key).to_string();
        // A call in a document's code fence shows a use; it runs nothing.
        if matches!(crate::analysis::role::Role::of(&file), crate::analysis::role::Role::Docs | crate::analysis::role::Role::Changelog) {
            return false;
        }
        let imported = nb.facts_of(&file).ok().flatten().is_some_and(|f| {
            f.imports.iter().any(|i| crate::graph::import_stem(&i.module) == receiver.to_lowercase() || i.names.iter().any(|n| n == receiver))
        });
        !imported
    };
    let more = incoming_where(nb, stub, &[EdgeKind::Calls], keep, definitions, &mut out)?;
    Ok((out, more))
}

/// The share of a relation's weight a dependent gets: all of it when the
/// relation is resolved; for a call by name among `candidates` definitions,
/// one part in `candidates + 1` (each definition alike, and one more for a
/// method of a type outside the repository: the call may mean none of them).
fn by_name_share(candidates: usize) -> f32 {
    match candidates {
        0 | 1 => 1.0,
        n => 1.0 / (n as f32 + 1.0),
    }
}

/// The line of the import statement of `module` in the file `file` is, from its facts.
fn import_line(nb: &mut Neighbourhood, file: NodeIndex, module: &str) -> Result<Option<usize>, GraphError> {
    let path = key_path(&nb.graph().graph[file].key).to_string();
    let Some(facts) = nb.facts_of(&path)? else { return Ok(None) };
    Ok(facts.imports.iter().find(|i| i.module == module).map(|i| i.line))
}

/// The methods of subclasses (or implementations) of a changed method's
/// class that have its name: dispatched to in its place.
fn overrides(nb: &mut Neighbourhood, path: &str, qualified_name: &str) -> Result<Vec<Dependent>, GraphError> {
    let Some(parent) = parent_of(qualified_name) else { return Ok(Vec::new()) };
    let Some(class) = nb.node(&NodeKey::Symbol { path: path.to_string(), qualified_name: parent.to_string() })? else { return Ok(Vec::new()) };
    let interface = nb.graph().graph[class].kind == Kind::Interface;
    let name = own_name(qualified_name).to_string();
    let mut subclasses = Vec::new();
    incoming(nb, class, &[EdgeKind::Inherits], &mut subclasses)?;
    let g = nb.graph();
    let mut out = Vec::new();
    for sub in subclasses {
        for (member, _) in g.walk(&[sub.node], &[EdgeKind::Contains], Direction::Outgoing, 1) {
            if let NodeKey::Symbol { qualified_name: q, .. } = &g.graph[member].key {
                if own_name(q) == name {
                    let relation = if interface { Relation::Implements } else { Relation::Overrides };
                    out.push(Dependent { node: member, relation, names: name.clone(), line: Some(g.graph[member].start_line), candidates: 1 });
                }
            }
        }
    }
    for (_, methods) in structural_implementations(nb, class)?.0 {
        if let Some(&member) = methods.get(&name) {
            let line = nb.graph().graph[member].start_line;
            out.push(Dependent { node: member, relation: Relation::Implements, names: name.clone(), line: Some(line), candidates: 1 });
        }
    }
    Ok(out)
}

/// A type that meets an interface, with its method of each name the interface declares.
type Implementer = (NodeIndex, HashMap<String, NodeIndex>);

/// The types that meet `interface` by their methods, in a language where
/// no type names the interfaces it meets ([`lang::Language::interfaces_are_structural`]):
/// those of any package with a method of every name the interface declares
/// (its embedded interfaces' methods are not required, so a type may be
/// listed that misses one of those), each with those methods by name.
/// Read through the name index, one method name at a time, so no other
/// type of the repository is loaded. An interface without methods (`any`,
/// a type-set constraint) is met by every type and lists none. At most
/// [`CODE_FANOUT`] are listed (in path order); the second value is how many
/// more there are.
fn structural_implementations(nb: &mut Neighbourhood, interface: NodeIndex) -> Result<(Vec<Implementer>, usize), GraphError> {
    let node = &nb.graph().graph[interface];
    let NodeKey::Symbol { path, qualified_name } = node.key.clone() else { return Ok((Vec::new(), 0)) };
    if node.kind != Kind::Interface || !lang::Language::from_path(&path).interfaces_are_structural() {
        return Ok((Vec::new(), 0));
    }
    let Some(facts) = nb.facts_of(&path)? else { return Ok((Vec::new(), 0)) };
    let mut required: Vec<String> =
        facts.symbols.iter().filter(|s| s.parent.as_deref() == Some(qualified_name.as_str())).map(|s| own_name(&s.qualified_name).to_string()).collect();
    required.sort();
    required.dedup();
    // (package folder, receiver type) -> its methods of the required names.
    let mut met: Option<HashMap<(String, String), HashMap<String, NodeIndex>>> = None;
    for name in &required {
        let mut with_it: HashMap<(String, String), HashMap<String, NodeIndex>> = HashMap::new();
        for ix in nb.find_symbols(name)? {
            let n = &nb.graph().graph[ix];
            let NodeKey::Symbol { path: p, qualified_name: q } = &n.key else { continue };
            if n.kind != Kind::Method || own_name(q) != name.as_str() || !lang::Language::from_path(p).interfaces_are_structural() {
                continue;
            }
            let Some(receiver) = parent_of(q) else { continue };
            let key = (folder(p).to_string(), own_name(receiver).to_string());
            if met.as_ref().is_some_and(|m| !m.contains_key(&key)) {
                continue;
            }
            with_it.entry(key).or_default().insert(name.clone(), ix);
        }
        met = Some(match met {
            None => with_it,
            Some(mut before) => {
                before.retain(|k, _| with_it.contains_key(k));
                for (k, methods) in with_it {
                    if let Some(m) = before.get_mut(&k) {
                        m.extend(methods);
                    }
                }
                before
            }
        });
    }
    let mut out = Vec::new();
    let mut met: Vec<_> = met.unwrap_or_default().into_iter().collect();
    met.sort_by(|a, b| a.0.cmp(&b.0));
    let more = met.len().saturating_sub(CODE_FANOUT);
    met.truncate(CODE_FANOUT);
    for ((dir, receiver), methods) in met {
        let types = nb.find_symbols(&receiver)?;
        let g = &nb.graph().graph;
        let declared = types.into_iter().find(|t| {
            matches!(&g[*t].key, NodeKey::Symbol { path: p, qualified_name: q } if folder(p) == dir && q == &receiver)
                && matches!(g[*t].kind, Kind::Class | Kind::Type)
        });
        if let Some(t) = declared {
            out.push((t, methods));
        }
    }
    Ok((out, more))
}

/// A path's folder (a Go package): `""` at the root.
fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Files whose imports of `path` bring in `name` by name.
fn importers_naming(nb: &mut Neighbourhood, path: &str, name: &str) -> Result<Vec<Dependent>, GraphError> {
    let Some(file) = nb.node(&NodeKey::File(path.to_string()))? else { return Ok(Vec::new()) };
    let mut importers = Vec::new();
    incoming(nb, file, &[EdgeKind::Imports], &mut importers)?;
    let mut out = Vec::new();
    for imp in importers {
        let importer = key_path(&nb.graph().graph[imp.node].key).to_string();
        let Some(facts) = nb.facts_of(&importer)? else { continue };
        if let Some(import) = facts.imports.iter().find(|i| i.names.iter().any(|n| own_name(n) == name)) {
            out.push(Dependent { node: imp.node, relation: Relation::Imports, names: name.to_string(), line: Some(import.line), candidates: 1 });
        }
    }
    Ok(out)
}

/// The line that shows the dependency: the known one (an import's
/// statement, an override's declaration), else, within the dependent (a
/// whole file for a module-level use), the first line that uses the name —
/// for a call, as a call (`name(`) where one does — never a comment that
/// merely mentions it.
fn evidence(side: &Side, src: &Sources, r: &Reached, known: Option<usize>) -> Option<Evidence> {
    let text = side.text(r.path(), src)?;
    let lines: Vec<&str> = text.lines().collect();
    let line = known.or_else(|| {
        let (from, to) = match r.key {
            NodeKey::Symbol { .. } => (r.start_line.max(1), r.end_line.max(r.start_line)),
            _ => (1, lines.len()),
        };
        let mut span = from..=to.min(lines.len());
        let uses = |n: &usize| !is_comment(lines[n - 1]) && says_word(lines[n - 1], &r.names);
        // A caller of its own name (`get` calling `cache.get`): its own
        // declaration says the name first, and is not the call.
        if r.symbol().map(own_name) == Some(r.names.as_str()) {
            if let Some(declared) = span.clone().find(uses) {
                span = (declared + 1).min(*span.end())..=*span.end();
                if !span.clone().any(|n| uses(&n)) {
                    span = from..=to.min(lines.len());
                }
            }
        }
        let called = |n: &usize| uses(n) && calls_word(lines[n - 1], &r.names);
        // Of two calls of the name (`task.cancel(); token.cancel()`), the
        // one through a receiver named after the method's type.
        let owner = parent_of(&r.reaches).map(own_name);
        let through_owner = |n: &usize| called(n) && owner.is_some_and(|t| receiver_is_named_after(lines[n - 1], &r.names, t));
        match r.relation {
            Relation::Calls => span.clone().find(through_owner).or_else(|| span.clone().find(called)).or_else(|| span.clone().find(uses)),
            _ => span.clone().find(uses),
        }
    })?;
    let shown: String = lines.get(line.checked_sub(1)?)?.trim().chars().take(160).collect();
    Some(Evidence { line, text: shown })
}

/// Whether `line` is a comment line in the usual notations (`//`, `#`,
/// `/*`, ` * `, `--`, `;`, a docstring's quotes): it mentions, it does not use.
/// A C preprocessor line (`#include`, `#define`) is code.
fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    let preprocessor = ["#include", "#import", "#define", "#if", "#pragma"].iter().any(|p| t.starts_with(p));
    !preprocessor && ["//", "#", "/*", "* ", "--", ";", "\"\"\"", "'''", "(*", "%"].iter().any(|c| t.starts_with(c)) || t == "*"
}

/// Whether `line` calls `word`: the word, then (after spaces, or a Rust
/// macro's `!`) an opening parenthesis.
fn calls_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        let rest = line[i + word.len()..].trim_start();
        rest.starts_with('(') || rest.starts_with("!(")
    })
}

/// Whether `line` calls `method` through a receiver named after `type_name`
/// (`cancellationToken?.cancel()`, `self.token.cancel()` for
/// `CancellationToken`; `IndexState::save(…)`, `state.save()` for
/// `IndexState`): the receiver's last identifier, lowercase and without
/// `_`, is the type's name or its last word (three letters or more).
fn receiver_is_named_after(line: &str, method: &str, type_name: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    let ty = squash(type_name);
    let last_word = type_name.char_indices().filter(|(_, c)| c.is_uppercase()).map(|(i, _)| i).next_back().map_or(type_name, |i| &type_name[i..]);
    let last_word = squash(last_word);
    line.match_indices(method).any(|(i, _)| {
        let before = line[..i].trim_end_matches(['.', '?', '!', ':', '>', '-']);
        if before.len() == line[..i].len() {
            return false; // not a call through a receiver
        }
        let receiver: String =
            before.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect::<Vec<char>>().into_iter().rev().collect();
        let receiver = squash(&receiver);
        !receiver.is_empty() && (receiver == ty || (last_word.len() >= 3 && receiver == last_word))
    })
}

/// Whether `line` holds `word` with no identifier character on either side.
fn says_word(line: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receiver_named_after_the_type() {
        assert!(receiver_is_named_after("        cancellationToken?.cancel()", "cancel", "CancellationToken"));
        assert!(receiver_is_named_after("        self.token.cancel()", "cancel", "CancellationToken"));
        assert!(receiver_is_named_after("    IndexState::save(&s)", "save", "IndexState"));
        assert!(receiver_is_named_after("    $this->index_state->save()", "save", "IndexState"));
        assert!(!receiver_is_named_after("        imageTask?.cancel()", "cancel", "CancellationToken"));
        assert!(!receiver_is_named_after("    cancel()", "cancel", "CancellationToken"));
    }

    #[test]
    fn names_and_words() {
        assert!(says_word("    return send(request)", "send"));
        assert!(!says_word("    return resend(request)", "send"));
        assert!(!says_word("    send_all()", "send"));
        assert_eq!(own_name("p->send"), "send", "a C or PHP call through a pointer reaches send");
    }

    #[test]
    fn comments_mention_and_calls_call() {
        for c in ["// send it", "# send", "/* send */", " * send the request", "-- send", "\"\"\"Send the request.", "%% send"] {
            assert!(is_comment(c), "{c}");
        }
        for c in ["send(x)", "#include \"send.h\"", "x = send(y)  # send"] {
            assert!(!is_comment(c), "{c}");
        }
        assert!(calls_word("    return send (request)", "send"));
        assert!(calls_word("    send!(x)", "send"));
        assert!(!calls_word("    callback = send", "send"));
    }
}

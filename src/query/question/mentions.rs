//! The indexed files a question names: a path, a stack frame, a dotted
//! module name, matched against the paths of the index.

use crate::query::base::parameters::{FRAME_DECAY, FRAME_FLOOR, MODULE_STRENGTH, NAME_ONLY_MENTION};
use std::collections::HashMap;

use super::document::{Frame, Signals};

/// How many trailing components `path` (indexed, `/`-separated) and
/// `mentioned` (as written: absolute, relative, Windows) share.
fn shared_tail(path: &str, mentioned: &str) -> usize {
    let mentioned = mentioned.trim_start_matches("./");
    path.rsplit('/').zip(mentioned.rsplit(['/', '\\'])).take_while(|(a, b)| a == b).count()
}

/// How surely a mention names `path`: a stack frame's absolute path
/// (`/usr/lib/python3/site-packages/_pytest/main.py`) and a written
/// `_pytest/main.py` share a directory and the name with `src/_pytest/main.py`;
/// a bare `main.py` shares only the name, weaker evidence.
pub fn mention_strength(path: &str, mentioned: &str) -> f32 {
    match shared_tail(path, mentioned) {
        0 => 0.0,
        1 if path.contains('/') => NAME_ONLY_MENTION,
        _ => 1.0,
    }
}

/// A name more indexed files share than this says nothing about which one
/// the query means (`conf.py`, `__init__.py`).
const MAX_NAMESAKES: usize = 3;

/// The indexed files a query names (its paths, stack frames and dotted
/// module names), each with how surely: a mention several files match
/// equally is split between them, and of a stack trace's files the
/// innermost counts most.
#[derive(Debug, Clone, Default)]
pub struct Mentions {
    strength: HashMap<String, f32>,
}

impl Mentions {
    pub fn new<'a>(signals: Option<&Signals>, indexed: impl Iterator<Item = &'a String>) -> Mentions {
        let mut m = Mentions::default();
        let Some(signals) = signals else { return m };
        let indexed: Vec<&String> = indexed.collect();
        for written in signals.paths.iter().filter(|p| !signals.frames.iter().any(|f| &f.path == *p)) {
            m.add(&indexed, written, 1.0);
        }
        // Frames in the repository, innermost first.
        let mut frames: Vec<&Frame> = signals.frames.iter().collect();
        frames.sort_by_key(|f| f.depth);
        let mut in_repo = 0;
        for f in frames {
            let weight = (1.0 - FRAME_DECAY * in_repo as f32).max(FRAME_FLOOR);
            if m.add(&indexed, &f.path, weight) {
                in_repo += 1;
            }
        }
        for id in &signals.identifiers {
            if id.name.contains('.') {
                m.add_module(&indexed, &id.name);
            }
        }
        m
    }

    /// Credits the indexed files that best match `written` (the most
    /// trailing components) with `weight`; whether any did.
    fn add(&mut self, indexed: &[&String], written: &str, weight: f32) -> bool {
        let mut best = 0;
        let mut matches: Vec<&String> = Vec::new();
        for p in indexed {
            let k = shared_tail(p, written);
            if k > best {
                best = k;
                matches.clear();
            }
            if k > 0 && k == best {
                matches.push(p);
            }
        }
        if matches.is_empty() || matches.len() > MAX_NAMESAKES {
            return false;
        }
        let n = matches.len() as f32;
        for p in matches {
            let s = weight * mention_strength(p, written) / n;
            let e = self.strength.entry(p.clone()).or_insert(0.0);
            *e = e.max(s);
        }
        true
    }

    /// `a.b.c` (or its longest prefix that is a module): `a/b/c.py`,
    /// `a/b/c/__init__.py` and the like.
    fn add_module(&mut self, indexed: &[&String], dotted: &str) {
        let parts: Vec<&str> = dotted.split('.').collect();
        for n in (2..=parts.len()).rev() {
            let base = parts[..n].join("/");
            let found: Vec<&String> = indexed
                .iter()
                .copied()
                .filter(|p| {
                    let stem = p.rsplit_once('.').map_or(p.as_str(), |(s, _)| s);
                    let stem = stem.strip_suffix("/__init__").or_else(|| stem.strip_suffix("/mod")).or_else(|| stem.strip_suffix("/index")).unwrap_or(stem);
                    stem == base || stem.ends_with(&format!("/{base}"))
                })
                .collect();
            if !found.is_empty() {
                if found.len() <= MAX_NAMESAKES {
                    for p in &found {
                        let e = self.strength.entry((*p).clone()).or_insert(0.0);
                        *e = e.max(MODULE_STRENGTH / found.len() as f32);
                    }
                }
                return;
            }
        }
    }

    /// Whether the query names no indexed file.
    pub fn is_empty(&self) -> bool {
        self.strength.is_empty()
    }

    /// How surely the query names `path` (0 when it does not).
    pub fn of(&self, path: &str) -> f32 {
        self.strength.get(path).copied().unwrap_or(0.0)
    }

    /// The named files, in path order.
    pub fn paths(&self) -> Vec<&String> {
        let mut out: Vec<&String> = self.strength.keys().collect();
        out.sort();
        out
    }
}

//! The keyword side of a query over the index and the work tree laid over
//! it ([`crate::worktree`]): each keyword retriever runs on the index with
//! the layer's paths hidden and on the layer, and the two lists merge by
//! score (both sides are scored with the statistics of the work tree as a
//! whole: the layer's documents and the index's but the hidden ones, so the
//! scores are those a fresh index of the work tree would give).
//! Results, content, outlines and parents come from the side that holds
//! the path.

use crate::query::answer::{Hit, Origin, SearchResult as Result};
use crate::query::options::QueryOptions;
use crate::query::question::Question;
use crate::query::retrieve::{bm25, keyword, literals, symbols};
use crate::stores::keyword::{FileTerms, KeywordIndex};
use crate::worktree::Layer;

/// The keyword index of the indexed commit, with the work tree over it.
pub(crate) struct Keyword<'a> {
    pub base: &'a KeywordIndex,
    pub layer: Option<&'a Layer>,
}

impl Keyword<'_> {
    /// `run` on the index (`opts.hide` leaves the layer's paths out) and on
    /// the layer; best scores first, `opts.limit` of them.
    pub fn list(&self, opts: &QueryOptions, run: impl Fn(&KeywordIndex, &QueryOptions) -> Result<Vec<Hit>>) -> Result<Vec<Hit>> {
        let Some(layer) = self.layer else { return run(self.base, opts) };
        // The index beneath scores with the work tree's statistics too.
        let mut hits = run(&layer.beneath, opts)?;
        if layer.files.is_empty() {
            return Ok(hits);
        }
        let mut own = opts.clone();
        own.hide = Default::default();
        let mut from_layer = run(&layer.keyword, &own)?;
        for h in &mut from_layer {
            h.source = Origin::Worktree;
        }
        hits = merge(hits, from_layer);
        hits.truncate(opts.limit);
        for (i, h) in hits.iter_mut().enumerate() {
            h.rank = i + 1;
            let s = &mut h.signals;
            for slot in [&mut s.bm25, &mut s.symbol, &mut s.exact] {
                if slot.is_some() {
                    *slot = Some(i + 1);
                }
            }
        }
        Ok(hits)
    }

    /// Keyword mode's list (`literals_first`: chunks holding a literal of
    /// the question first) or hybrid's BM25 list. Over the work tree, the two
    /// sides' windows are merged by raw score and cut once, as one index of
    /// the tree would take its window: a window per side would let in chunks
    /// the tree's own window leaves out.
    pub fn bm25(&self, q: &Question, opts: &QueryOptions, literals_first: bool) -> Result<Vec<Hit>> {
        let index = self.layer.map_or(self.base, |l| &l.beneath);
        let mut window = bm25::bm25_window(index, q, opts)?;
        if let Some(layer) = self.layer.filter(|l| !l.files.is_empty()) {
            let mut own = opts.clone();
            own.hide = Default::default();
            let mut from_layer = bm25::bm25_window(&layer.keyword, q, &own)?;
            for c in &mut from_layer {
                c.hit_mut().source = Origin::Worktree;
            }
            window.append(&mut from_layer);
        }
        let ranked = bm25::bm25_ranked(window, opts.limit);
        // A document's literals are weaker evidence: the hybrid fusion weighs them.
        let as_written = match literals_first && !q.document {
            true => self.list(opts, |index, o| literals::literal_matches(index, &q.literals, false, o))?,
            false => Vec::new(),
        };
        Ok(bm25::keyword_list(ranked, as_written, opts.limit))
    }

    /// The hit of a symbol's definition, from the side that holds its path.
    pub fn symbol_hit(&self, path: &str, qualified: &str) -> Result<Option<Hit>> {
        match self.layer.filter(|l| l.hides(path)) {
            Some(layer) => Ok(symbols::symbol_hit(&layer.keyword, path, qualified)?.map(|mut h| {
                h.source = Origin::Worktree;
                h
            })),
            None => symbols::symbol_hit(self.base, path, qualified),
        }
    }

    /// A document's chunk that names `names` ([`keyword::chunk_naming`]),
    /// from the side that holds its path.
    pub fn chunk_naming(&self, path: &str, names: &[String]) -> Result<Option<Hit>> {
        match self.layer.filter(|l| l.hides(path)) {
            Some(layer) => Ok(keyword::chunk_naming(&layer.keyword, path, names)?.map(|mut h| {
                h.source = Origin::Worktree;
                h
            })),
            None => keyword::chunk_naming(self.base, path, names),
        }
    }

    fn side(&self, hit: &Hit) -> &KeywordIndex {
        match (hit.source, self.layer) {
            (Origin::Worktree, Some(layer)) => &layer.keyword,
            _ => self.base,
        }
    }
}

/// Two lists, each best first, as one: each keeps its own order (a
/// retriever's tie-breaks among its documents), and a tie between the two
/// goes as one index breaks it ([`Hit::tie`], larger first). Keyword mode
/// puts the chunks holding a literal first, scored above its best BM25
/// hit: that block is merged first, re-based on the merged best hit.
fn merge(base: Vec<Hit>, layer: Vec<Hit>) -> Vec<Hit> {
    let (base_literals, base_rest): (Vec<Hit>, Vec<Hit>) = base.into_iter().partition(|h| h.signals.exact.is_some());
    let (layer_literals, layer_rest): (Vec<Hit>, Vec<Hit>) = layer.into_iter().partition(|h| h.signals.exact.is_some());
    // Literal scores are relative to their side's best other hit (1 without one).
    let top_of = |rest: &[Hit]| rest.first().map_or(1.0, |h| h.score);
    let (base_top, layer_top) = (top_of(&base_rest), top_of(&layer_rest));
    let mut out = merge_sorted(base_rest, layer_rest);
    if base_literals.is_empty() && layer_literals.is_empty() {
        return out;
    }
    let top = top_of(&out);
    let rebase = |hits: Vec<Hit>, side_top: f32| {
        hits.into_iter().map(move |mut h| {
            h.score = h.score - side_top + top;
            h
        })
    };
    let mut literals = merge_sorted(rebase(base_literals, base_top).collect(), rebase(layer_literals, layer_top).collect());
    literals.append(&mut out);
    literals
}

fn merge_sorted(base: Vec<Hit>, layer: Vec<Hit>) -> Vec<Hit> {
    let mut out = Vec::with_capacity(base.len() + layer.len());
    let (mut base, mut layer) = (base.into_iter().peekable(), layer.into_iter().peekable());
    loop {
        let take_base = match (base.peek(), layer.peek()) {
            (Some(b), Some(l)) => b.score > l.score || (b.score == l.score && b.tie >= l.tie),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        out.extend(if take_base { base.next() } else { layer.next() });
    }
    out
}

/// What a source's [`Chunks`] asks of its keyword index, from the side
/// that holds each path.
impl Keyword<'_> {
    pub fn fill_content(&self, hits: &mut [Hit]) -> Result<()> {
        let (mut base, mut layer): (Vec<Hit>, Vec<Hit>) = (Vec::new(), Vec::new());
        let mut order = Vec::with_capacity(hits.len());
        for h in hits.iter() {
            let worktree = h.source == Origin::Worktree && self.layer.is_some();
            order.push(worktree);
            if worktree {
                layer.push(h.clone())
            } else {
                base.push(h.clone())
            }
        }
        keyword::fill_content(self.base, &mut base)?;
        if let Some(l) = self.layer {
            keyword::fill_content(&l.keyword, &mut layer)?;
        }
        let (mut base, mut layer) = (base.into_iter(), layer.into_iter());
        for (h, worktree) in hits.iter_mut().zip(order) {
            if let Some(filled) = if worktree { layer.next() } else { base.next() } {
                *h = filled;
            }
        }
        Ok(())
    }

    pub fn file_hit(&self, path: &str) -> Result<Option<Hit>> {
        match self.layer.filter(|l| l.hides(path)) {
            Some(layer) => Ok(keyword::file_hit(&layer.keyword, path)?.map(|mut h| {
                h.source = Origin::Worktree;
                h
            })),
            None => keyword::file_hit(self.base, path),
        }
    }

    pub fn file_terms(&self, paths: &[&str], terms: &[String]) -> Result<Option<FileTerms>> {
        // A file the work tree changed is read from the layer, the others
        // from the index; how rare a term is, from the index.
        let in_layer = |p: &str| self.layer.is_some_and(|l| l.hides(p));
        let (layer_paths, base_paths): (Vec<&str>, Vec<&str>) = paths.iter().partition(|p| in_layer(p));
        let base = keyword::file_terms(self.base, &base_paths, terms)?;
        let layer = match self.layer {
            Some(l) if !layer_paths.is_empty() => keyword::file_terms(&l.keyword, &layer_paths, terms)?,
            _ => FileTerms::default(),
        };
        let (mut from_base, mut from_layer) = (base.counts.into_iter().zip(base.lengths), layer.counts.into_iter().zip(layer.lengths));
        let (counts, lengths) =
            paths.iter().map(|p| if in_layer(p) { from_layer.next() } else { from_base.next() }.unwrap_or_else(|| (vec![0; terms.len()], 0))).unzip();
        Ok(Some(FileTerms { counts, lengths, idf: base.idf }))
    }

    pub fn parent(&self, hit: &Hit) -> Result<Option<Hit>> {
        let Some(id) = &hit.chunk_id else { return Ok(None) };
        let side = self.side(hit);
        let parent = match keyword::chunk_hit(side, id)? {
            Some((_, Some(parent))) => keyword::chunk_hit(side, &parent)?.map(|(p, _)| p),
            _ => None,
        };
        Ok(parent.map(|mut p| {
            p.source = hit.source;
            p
        }))
    }
}

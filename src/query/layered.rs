//! The keyword side of a query over the index and the work tree laid over
//! it ([`crate::worktree`]): each keyword retriever runs on the index with
//! the layer's paths hidden and on the layer, and the two lists merge by
//! score (the layer is scored with the index's statistics, so one scale).
//! Results, content, outlines and parents come from the side that holds
//! the path.

use super::pipeline::Chunks;
use super::retrievers::{self as search, Hit, Origin, QueryOptions, Result};
use crate::stores::keyword::KeywordIndex;
use crate::worktree::Layer;

/// The keyword index of the indexed commit, with the work tree over it.
pub(super) struct Keyword<'a> {
    pub base: &'a KeywordIndex,
    pub layer: Option<&'a Layer>,
}

impl Keyword<'_> {
    /// `run` on the index (`opts.hide` leaves the layer's paths out) and on
    /// the layer; best scores first, `opts.limit` of them.
    pub fn list(&self, opts: &QueryOptions, run: impl Fn(&KeywordIndex, &QueryOptions) -> Result<Vec<Hit>>) -> Result<Vec<Hit>> {
        let mut hits = run(self.base, opts)?;
        let Some(layer) = self.layer.filter(|l| !l.files.is_empty()) else { return Ok(hits) };
        let mut own = opts.clone();
        own.hide = Default::default();
        let mut from_layer = run(&layer.keyword, &own)?;
        for h in &mut from_layer {
            h.source = Origin::Worktree;
        }
        hits.extend(from_layer);
        // Stable: the index's hit first on equal scores.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
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

    /// Whether the layer decides what `path` holds.
    pub fn hides(&self, path: &str) -> bool {
        self.layer.is_some_and(|l| l.hides(path))
    }

    fn side(&self, hit: &Hit) -> &KeywordIndex {
        match (hit.source, self.layer) {
            (Origin::Worktree, Some(layer)) => &layer.keyword,
            _ => self.base,
        }
    }
}

impl Chunks for Keyword<'_> {
    fn fill_content(&self, hits: &mut [Hit]) -> Result<()> {
        let (mut base, mut layer): (Vec<Hit>, Vec<Hit>) = (Vec::new(), Vec::new());
        let mut order = Vec::with_capacity(hits.len());
        for h in hits.iter() {
            let worktree = h.source == Origin::Worktree && self.layer.is_some();
            order.push(worktree);
            if worktree { layer.push(h.clone()) } else { base.push(h.clone()) }
        }
        search::fill_content(self.base, &mut base)?;
        if let Some(l) = self.layer {
            search::fill_content(&l.keyword, &mut layer)?;
        }
        let (mut base, mut layer) = (base.into_iter(), layer.into_iter());
        for (h, worktree) in hits.iter_mut().zip(order) {
            if let Some(filled) = if worktree { layer.next() } else { base.next() } {
                *h = filled;
            }
        }
        Ok(())
    }

    fn file_hit(&self, path: &str) -> Result<Option<Hit>> {
        match self.layer.filter(|l| l.hides(path)) {
            Some(layer) => Ok(search::file_hit(&layer.keyword, path)?.map(|mut h| {
                h.source = Origin::Worktree;
                h
            })),
            None => search::file_hit(self.base, path),
        }
    }

    fn parent(&self, hit: &Hit) -> Result<Option<Hit>> {
        let Some(id) = &hit.chunk_id else { return Ok(None) };
        let side = self.side(hit);
        let parent = match search::chunk_hit(side, id)? {
            Some((_, Some(parent))) => search::chunk_hit(side, &parent)?.map(|(p, _)| p),
            _ => None,
        };
        Ok(parent.map(|mut p| {
            p.source = hit.source;
            p
        }))
    }
}

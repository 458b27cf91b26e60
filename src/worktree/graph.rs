//! The layer's code graph: its files' facts put in place of the index's
//! by the graph's own incremental update, held in memory as an overlay of
//! the store ([`crate::graph::Overlay`]) — their references resolved again,
//! and those of the indexed files that could now resolve elsewhere — so a
//! graph question over the layer answers as one over a fresh index of the
//! work tree. Made on the first question that needs it, kept with the layer.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::Layer;
use crate::graph::{FileFacts, GraphStore, Overlay};

impl Layer {
    /// The layer's graph over the index's in `index_dir` (`None`: the index has no graph).
    pub fn graph(&self, index_dir: &Path) -> Result<Option<Arc<Overlay>>, String> {
        self.graph.get_or_init(|| overlay(self, index_dir).map(|o| o.map(Arc::new))).clone()
    }
}

fn overlay(layer: &Layer, index_dir: &Path) -> Result<Option<Overlay>, String> {
    // Kept with the layer by the last process that needed it: the update
    // reads the records of every file the layer's names touch (~90 ms on
    // `large` for 20 files), opening it is a read.
    if let Some(kept) = layer.kept.as_ref().and_then(|key| super::saved::graph(index_dir, key, &layer.base, &layer.hidden)) {
        return Ok(Some(kept));
    }
    let made = by_update(layer, index_dir)?;
    if let (Some(overlay), Some(key)) = (&made, &layer.kept) {
        // Not kept only costs the next process the update again.
        let _ = super::saved::keep_graph(index_dir, key, &layer.base, &layer.hidden, overlay);
    }
    Ok(made)
}

fn by_update(layer: &Layer, index_dir: &Path) -> Result<Option<Overlay>, String> {
    // Every hidden path leaves the index's graph (a file left out of the
    // layer is not indexed either: binary, too large); those with content come back.
    let removed: BTreeSet<String> = layer.hidden.iter().cloned().collect();
    let added: Vec<(String, FileFacts)> = layer.analyses.iter().map(|(path, _, chunks)| (path.clone(), FileFacts::of(chunks))).collect();
    GraphStore::overlay(index_dir, &removed, added).map_err(|e| e.to_string())
}

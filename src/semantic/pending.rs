//! Vectors a query embedded for texts of the work tree, kept beside the
//! index (`worktree-vectors.bin`) until an index run takes them into the
//! vector cache: the commit of an edit a query already embedded embeds
//! nothing again. Queries open the vector store read-only, so they cannot
//! write its cache themselves.
//!
//! It is only a cache: a file that is missing, damaged or of another model
//! reads as empty, and one query's write may lose another's (the next query
//! embeds those again).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The file, in the index folder.
pub const FILE: &str = "worktree-vectors.bin";
/// Most vectors kept (the newest): ~6 MB of 384-dimension vectors.
const MAX_VECTORS: usize = 4096;

#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    model: String,
    /// (cache id, vector), oldest first.
    vectors: Vec<(u64, Vec<f32>)>,
}

/// The work tree's vectors of one model, by cache id.
pub struct PendingVectors {
    path: PathBuf,
    model: String,
    vectors: Vec<(u64, Vec<f32>)>,
}

impl PendingVectors {
    /// What the index folder holds for `model` (empty when nothing usable is there).
    pub fn load(index_dir: &Path, model: &str) -> PendingVectors {
        let path = index_dir.join(FILE);
        let vectors = std::fs::read(&path)
            .ok()
            .and_then(|bytes| bincode::serde::decode_from_slice::<Stored, _>(&bytes, bincode::config::standard()).ok())
            .filter(|(s, _)| s.model == model)
            .map(|(s, _)| s.vectors)
            .unwrap_or_default();
        PendingVectors { path, model: model.to_string(), vectors }
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The vectors it holds of these cache ids.
    pub fn lookup(&self, ids: &[u64]) -> HashMap<u64, Vec<f32>> {
        let wanted: std::collections::HashSet<u64> = ids.iter().copied().collect();
        self.vectors.iter().filter(|(id, _)| wanted.contains(id)).map(|(id, v)| (*id, v.clone())).collect()
    }

    /// Adds vectors and writes the file (atomically), the oldest dropped past the cap.
    pub fn add(&mut self, new: Vec<(u64, Vec<f32>)>) -> std::io::Result<()> {
        if new.is_empty() {
            return Ok(());
        }
        let fresh: std::collections::HashSet<u64> = new.iter().map(|(id, _)| *id).collect();
        self.vectors.retain(|(id, _)| !fresh.contains(id));
        self.vectors.extend(new);
        let over = self.vectors.len().saturating_sub(MAX_VECTORS);
        self.vectors.drain(..over);
        self.save()
    }

    /// Forgets everything (an index run took what it needed into the cache).
    pub fn clear(self) -> std::io::Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn save(&self) -> std::io::Result<()> {
        let stored = Stored { model: self.model.clone(), vectors: self.vectors.clone() };
        let bytes = bincode::serde::encode_to_vec(&stored, bincode::config::standard()).map_err(std::io::Error::other)?;
        crate::stores::fs::write_atomic(&self.path, &bytes, None).map_err(|(_, e)| e)
    }
}

//! Optional cross-encoder reranking of the top results.
//!
//! No cross-encoder ships inside a package the registries here serve (see
//! ARCHITECTURE.md), so none is installed by default. A user who has one
//! (e.g. an ms-marco MiniLM cross-encoder exported to ONNX) puts `model.onnx`
//! and `tokenizer.json` in `<models>/reranker/` (next to the embedding model's
//! directory) or points `GIT_RAG_RERANKER` at a directory holding them.
//! The model takes `input_ids`, `attention_mask` (and `token_type_ids` when it
//! declares them) for a (query, passage) pair and returns one relevance logit
//! per pair (the last column when it returns several).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{Tokenizer, TruncationParams};

use crate::query::retrievers::Hit;

#[derive(Debug, thiserror::Error)]
pub enum RerankError {
    #[error("cannot load the reranker {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("reranking failed: {0}")]
    Inference(String),
    #[error(transparent)]
    Runtime(#[from] crate::semantic::embed::EmbedError),
}

/// Where a reranker is looked for.
pub fn reranker_dir(model_dir: &Path) -> PathBuf {
    match crate::env::reranker() {
        Some(p) => PathBuf::from(p),
        None => model_dir.parent().map(|p| p.join("reranker")).unwrap_or_else(|| PathBuf::from("reranker")),
    }
}

pub struct Reranker {
    session: Mutex<Session>,
    tokenizer: Tokenizer,
    wants_token_types: bool,
}

/// Tokens per (query, passage) pair.
const MAX_PAIR_TOKENS: usize = 512;

impl Reranker {
    /// `None` when no reranker is installed; `Some(Err)` when one is there but does not load.
    pub fn locate(model_dir: &Path) -> Option<Result<Reranker, RerankError>> {
        let dir = reranker_dir(model_dir);
        let onnx = dir.join("model.onnx");
        if !onnx.is_file() {
            return None;
        }
        Some(Reranker::load(&dir))
    }

    pub fn load(dir: &Path) -> Result<Reranker, RerankError> {
        let onnx = dir.join("model.onnx");
        let tok = dir.join("tokenizer.json");
        let load_err = |path: &Path, message: String| RerankError::Load { path: path.to_path_buf(), message };
        let env = crate::semantic::embed::environment(&crate::semantic::embed::runtime_library())?;
        let session = Session::builder(env)
            .map_err(|e| load_err(&onnx, e.to_string()))?
            .with_intra_op_spinning(false)
            .map_err(|e| load_err(&onnx, ort::Error::<()>::from(e).to_string()))?
            .commit_from_file(&onnx)
            .map_err(|e| load_err(&onnx, e.to_string()))?;
        let wants_token_types = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        let mut tokenizer = Tokenizer::from_file(&tok).map_err(|e| load_err(&tok, e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_PAIR_TOKENS, ..Default::default() }))
            .map_err(|e| load_err(&tok, e.to_string()))?;
        tokenizer.with_padding(None);
        Ok(Reranker { session: Mutex::new(session), tokenizer, wants_token_types })
    }

    /// Scores (query, passage) pairs.
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, RerankError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let pairs: Vec<(String, String)> = passages.iter().map(|p| (query.to_string(), (*p).to_string())).collect();
        let encs = self.tokenizer.encode_batch(pairs, true).map_err(|e| RerankError::Inference(e.to_string()))?;
        let refs: Vec<&tokenizers::Encoding> = encs.iter().collect();
        let crate::semantic::embed::PaddedBatch { rows, cols, ids, mask, types } = crate::semantic::embed::PaddedBatch::of(&refs);
        let err = |e: ort::Error| RerankError::Inference(e.to_string());
        let shape = [rows as i64, cols as i64];
        let ids_t = Tensor::from_array((shape, ids)).map_err(err)?;
        let mask_t = Tensor::from_array((shape, mask)).map_err(err)?;
        let mut session = self.session.lock().map_err(|_| RerankError::Inference("the reranker session was poisoned".into()))?;
        let outputs = if self.wants_token_types {
            let types_t = Tensor::from_array((shape, types)).map_err(err)?;
            session.run(ort::inputs!["input_ids" => ids_t, "attention_mask" => mask_t, "token_type_ids" => types_t]).map_err(err)?
        } else {
            session.run(ort::inputs!["input_ids" => ids_t, "attention_mask" => mask_t]).map_err(err)?
        };
        let (shape, data) = outputs[0].try_extract_tensor::<f32>().map_err(err)?;
        let per_row = if shape.len() >= 2 { shape[shape.len() - 1].max(1) as usize } else { 1 };
        if data.len() < rows * per_row {
            return Err(RerankError::Inference(format!("the reranker returned {} values for {rows} pairs", data.len())));
        }
        Ok((0..rows).map(|r| data[r * per_row + per_row - 1]).collect())
    }

    /// Reorders the first `top` hits by the cross-encoder's score; the rest keep their order.
    pub fn rerank(&self, query: &str, hits: &mut [Hit], top: usize) -> Result<(), RerankError> {
        let n = hits.len().min(top);
        let passages: Vec<String> = hits[..n].iter().map(|h| format!("{}\n{}", h.symbol.as_deref().unwrap_or(&h.path), h.content)).collect();
        let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
        let scores = self.score(query, &refs)?;
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b)));
        let reordered: Vec<Hit> = order.iter().map(|&i| hits[i].clone()).collect();
        for (i, (slot, (mut h, &oi))) in hits[..n].iter_mut().zip(reordered.into_iter().zip(&order)).enumerate() {
            h.score = scores[oi];
            h.rank = i + 1;
            *slot = h;
        }
        Ok(())
    }
}

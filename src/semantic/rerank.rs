//! Optional reranking of the top results: by a rerank endpoint
//! (`rag.rerank.url`, see [`super::rerank_api`]) or a local cross-encoder.
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

pub use super::rerank_api::{ApiReranker, RerankApi, RerankApiOptions};

#[derive(Debug, thiserror::Error)]
pub enum RerankError {
    #[error("cannot load the reranker {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("reranking failed: {0}")]
    Inference(String),
    #[error(transparent)]
    Runtime(#[from] crate::semantic::embed::EmbedError),
    #[error("the rerank endpoint {url}: {message}")]
    Api { url: String, message: String },
    #[error("{0}")]
    Settings(String),
}

/// Where reranking comes from, resolved from the settings.
#[derive(Debug, Clone)]
pub enum RerankerSource {
    /// A cross-encoder directory (`model.onnx`, `tokenizer.json`), used when it is there.
    Local(PathBuf),
    /// A rerank endpoint (`git config rag.rerank.url`).
    Api(RerankApiOptions),
    /// The settings name one in a way that cannot work; why.
    Misconfigured(String),
}

/// A reranker, ready to score.
pub enum Reranker {
    Local(Box<CrossEncoder>),
    Api(ApiReranker),
}

impl Reranker {
    /// `None` when none is configured or installed (say so: [`RerankerSource::missing`]);
    /// `Some(Err)` when one is there but cannot be used.
    pub fn open(source: &RerankerSource) -> Option<Result<Reranker, RerankError>> {
        match source {
            RerankerSource::Local(dir) => dir.join("model.onnx").is_file().then(|| CrossEncoder::load(dir).map(|c| Reranker::Local(Box::new(c)))),
            RerankerSource::Api(opts) => Some(Ok(Reranker::Api(ApiReranker::new(opts.clone())))),
            RerankerSource::Misconfigured(why) => Some(Err(RerankError::Settings(why.clone()))),
        }
    }

    /// What to tell a user who asked for reranking when [`Reranker::open`] found none.
    pub fn missing(source: &RerankerSource) -> String {
        match source {
            RerankerSource::Local(dir) => format!(
                "--rerank: no reranker configured (set `git config rag.rerank.url` to a rerank endpoint) or installed (looked for {}); answering without it",
                dir.join("model.onnx").display()
            ),
            RerankerSource::Api(_) | RerankerSource::Misconfigured(_) => "--rerank: no reranker; answering without it".to_string(),
        }
    }

    /// Relevance of each passage to `query`; `None` for one the reranker left unscored.
    pub fn score(&self, query: &str, passages: &[String]) -> Result<Vec<Option<f32>>, RerankError> {
        match self {
            Reranker::Local(r) => {
                let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
                Ok(r.score(query, &refs)?.into_iter().map(Some).collect())
            }
            Reranker::Api(r) => r.score(query, passages),
        }
    }

    /// The passages by relevance to `query`, best first, each with its
    /// score: a passage the reranker left unscored goes after the scored
    /// ones, in its given order.
    pub fn order(&self, query: &str, passages: &[String]) -> Result<Vec<(usize, Option<f32>)>, RerankError> {
        let scores = self.score(query, passages)?;
        let mut order: Vec<usize> = (0..passages.len()).collect();
        order.sort_by(|&a, &b| match (scores[a], scores[b]) {
            (Some(x), Some(y)) => y.total_cmp(&x).then(a.cmp(&b)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.cmp(&b),
        });
        Ok(order.into_iter().map(|i| (i, scores[i])).collect())
    }
}

/// Where a local cross-encoder is looked for.
pub fn reranker_dir(model_dir: &Path) -> PathBuf {
    match crate::env::reranker() {
        Some(p) => PathBuf::from(p),
        None => model_dir.parent().map(|p| p.join("reranker")).unwrap_or_else(|| PathBuf::from("reranker")),
    }
}

/// A cross-encoder run by ONNX Runtime.
pub struct CrossEncoder {
    session: Mutex<Session>,
    tokenizer: Tokenizer,
    wants_token_types: bool,
}

/// Tokens per (query, passage) pair.
const MAX_PAIR_TOKENS: usize = 512;

impl CrossEncoder {
    pub fn load(dir: &Path) -> Result<CrossEncoder, RerankError> {
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
        tokenizer.with_truncation(Some(TruncationParams { max_length: MAX_PAIR_TOKENS, ..Default::default() })).map_err(|e| load_err(&tok, e.to_string()))?;
        tokenizer.with_padding(None);
        Ok(CrossEncoder { session: Mutex::new(session), tokenizer, wants_token_types })
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
}

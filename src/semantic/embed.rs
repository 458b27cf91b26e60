//! Embeddings: where vectors come from ([`ModelSource`]) and the
//! [`Embedder`] that makes them, either a transformer run in-process
//! through ONNX Runtime (`ort`, loaded from a shared library at run time)
//! with a Hugging Face `tokenizers` tokenizer, or an OpenAI-compatible
//! endpoint ([`crate::semantic::api`]).
//!
//! A model is a directory with a `manifest.json` ([`ModelManifest`]): the
//! ONNX graph, the tokenizer, the output size, the token window, pooling,
//! normalisation and the prefixes for queries and documents. The default
//! (all-MiniLM-L6-v2) is put in place by `git rag model install`; any other
//! ONNX encoder can be used by pointing `git config rag.model` at its
//! directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use ort::session::Session;
use ort::value::Tensor;
use serde::{Deserialize, Serialize};
use tokenizers::{Tokenizer, TruncationParams};

pub use crate::semantic::api::{ApiEmbedder, ApiOptions};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("no embedding model at {path}: run `git rag model install` (or point `git config rag.model` at a model directory with a manifest.json)")]
    NoModel { path: PathBuf },
    #[error("the model manifest {path} is invalid ({message}); reinstall with `git rag model install --force`")]
    BadManifest { path: PathBuf, message: String },
    #[error("no ONNX Runtime library at {path}: run `git rag model install` (or set GIT_RAG_ORT_LIB to a libonnxruntime.so >= 1.24)")]
    NoRuntime { path: PathBuf },
    #[error("cannot load ONNX Runtime from {path}: {message}")]
    Runtime { path: PathBuf, message: String },
    #[error("cannot load the model {path}: {message}")]
    Model { path: PathBuf, message: String },
    #[error("cannot load the tokenizer {path}: {message}")]
    Tokenizer { path: PathBuf, message: String },
    #[error("embedding failed: {0}")]
    Inference(String),
    #[error("the embedding endpoint {url} failed: {message}")]
    Api { url: String, message: String },
    #[error("{from} gives {got}-dimensional vectors where {expected} are expected: set `git config rag.embed.dims` to what the model gives, or re-index after changing the model")]
    Dims { from: String, got: usize, expected: usize },
}

pub type Result<T> = std::result::Result<T, EmbedError>;

/// How token vectors become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Mean over the tokens the attention mask keeps.
    Mean,
    /// The first token (`[CLS]`).
    Cls,
}

/// `manifest.json` of a model directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelManifest {
    /// Stable name of the model; vectors are cached under it.
    pub id: String,
    /// ONNX graph, relative to the model directory.
    pub onnx: String,
    /// `tokenizer.json`, relative to the model directory.
    pub tokenizer: String,
    pub dims: usize,
    /// Longest input in tokens; longer inputs are truncated.
    pub max_tokens: usize,
    pub pooling: Pooling,
    pub normalize: bool,
    #[serde(default)]
    pub query_prefix: String,
    #[serde(default)]
    pub document_prefix: String,
    #[serde(default)]
    pub license: Option<String>,
    /// sha256 of each file, as installed.
    #[serde(default)]
    pub sha256: std::collections::BTreeMap<String, String>,
    /// The most texts one run of the graph may take. A graph that
    /// quantizes activations over the whole batch takes one, or a text's
    /// vector would depend on the texts embedded beside it (incremental
    /// equals full).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_batch: Option<usize>,
    /// `false`: ONNX Runtime never optimizes this graph at load, whatever
    /// the caller asks. The integer graph's fusions change its vectors
    /// (cosine 0.998 at worst) and gain nothing measurable there; a query
    /// process loads without them, so the index must too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimize: Option<bool>,
}

impl ModelManifest {
    pub const FILE: &'static str = "manifest.json";

    pub fn load(model_dir: &Path) -> Result<ModelManifest> {
        let path = model_dir.join(Self::FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(_) => return Err(EmbedError::NoModel { path: model_dir.to_path_buf() }),
        };
        let manifest: ModelManifest = serde_json::from_slice(&bytes).map_err(|e| EmbedError::BadManifest { path: path.clone(), message: e.to_string() })?;
        if manifest.dims == 0 || manifest.max_tokens < 8 {
            return Err(EmbedError::BadManifest { path, message: "dims and max_tokens must be positive".into() });
        }
        Ok(manifest)
    }
}

/// Where git-rag keeps downloaded runtimes and models: `$XDG_CACHE_HOME/git-rag`
/// or `~/.cache/git-rag`; `GIT_RAG_CACHE` overrides.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = crate::env::cache_dir() {
        return PathBuf::from(d);
    }
    if let Some(d) = crate::env::xdg_cache_home() {
        return PathBuf::from(d).join("git-rag");
    }
    let home = crate::env::home().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("git-rag")
}

pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";
/// The default model with integer matrix multiplies
/// ([`crate::semantic::integer_graph`]), where `git rag model install` made it.
pub const INTEGER_MODEL: &str = "all-MiniLM-L6-v2-int8";
pub const ORT_LIB_NAME: &str = "libonnxruntime.so.1.31.1";

/// The default model directory: the integer graph where install made one
/// (it agreed with the reference and the CPU has integer dot products), else
/// the reference graph.
pub fn default_model_dir() -> PathBuf {
    let integer = integer_model_dir();
    if integer.join(ModelManifest::FILE).exists() {
        return integer;
    }
    reference_model_dir()
}

/// The default model as its package ships it (int8 weights, fp32 compute).
pub fn reference_model_dir() -> PathBuf {
    cache_dir().join("models").join(DEFAULT_MODEL)
}

/// The default model with integer matrix multiplies.
pub fn integer_model_dir() -> PathBuf {
    cache_dir().join("models").join(INTEGER_MODEL)
}

/// The ONNX Runtime library: `GIT_RAG_ORT_LIB`, else the installed one.
pub fn runtime_library() -> PathBuf {
    match crate::env::ort_library() {
        Some(p) => PathBuf::from(p),
        None => cache_dir().join("onnxruntime").join(ORT_LIB_NAME),
    }
}

/// ONNX Runtime is loaded once per process; later calls reuse it (or its error).
pub(crate) fn environment(lib: &Path) -> Result<&'static ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> = OnceLock::new();
    if !lib.exists() {
        return Err(EmbedError::NoRuntime { path: lib.to_path_buf() });
    }
    let env = ENV.get_or_init(|| {
        let builder = ort::init_from(lib).map_err(|e| e.to_string())?;
        builder.with_name("git-rag").build().map_err(|e| e.to_string())
    });
    env.as_ref().map_err(|message| EmbedError::Runtime { path: lib.to_path_buf(), message: message.clone() })
}

/// Encodings padded into the row-major `i64` matrices a BERT-style ONNX
/// graph takes (shared by the embedder and the reranker).
pub(crate) struct PaddedBatch {
    pub rows: usize,
    pub cols: usize,
    pub ids: Vec<i64>,
    pub mask: Vec<i64>,
    pub types: Vec<i64>,
}

impl PaddedBatch {
    pub(crate) fn of(encs: &[&tokenizers::Encoding]) -> PaddedBatch {
        let rows = encs.len();
        let cols = encs.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0i64; rows * cols];
        let mut mask = vec![0i64; rows * cols];
        let mut types = vec![0i64; rows * cols];
        for (r, e) in encs.iter().enumerate() {
            for (c, ((&id, &m), &t)) in e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate() {
                ids[r * cols + c] = i64::from(id);
                mask[r * cols + c] = i64::from(m);
                types[r * cols + c] = i64::from(t);
            }
        }
        PaddedBatch { rows, cols, ids, mask, types }
    }
}

/// Options of an [`Embedder`].
#[derive(Debug, Clone, Copy)]
pub struct EmbedOptions {
    /// ONNX Runtime intra-op threads of each session.
    pub threads: usize,
    /// Sessions that run batches side by side, each with `threads` (the
    /// second and later are loaded when a call first has batches for them).
    pub sessions: usize,
    /// Inputs per inference call (similar lengths are batched together).
    pub batch_size: usize,
    /// Let ONNX Runtime optimize the graph at load. That costs ~250 ms here
    /// and pays off over many inputs; a process that embeds one query loads
    /// faster without it (the vectors agree to ~1e-6).
    pub optimize_graph: bool,
}

/// Most sessions side by side: each holds its own copy of the weights.
const MAX_SESSIONS: usize = 4;

impl Default for EmbedOptions {
    /// One-thread sessions side by side, one text a call: on 2 cores that
    /// embedded 1.5x (reference graph) to 1.8x (integer graph) as fast as
    /// one two-thread session on batches of 16 (docs/experiments.md,
    /// "Sessions side by side"): a small model's operators split poorly
    /// across threads, and a batch of one needs no padding.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let sessions = cores.clamp(1, MAX_SESSIONS);
        EmbedOptions { threads: (cores / sessions).max(1), sessions, batch_size: 4, optimize_graph: true }
    }
}

/// Where vectors come from.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSource {
    /// An ONNX model directory (with a `manifest.json`), run in-process.
    Onnx(PathBuf),
    /// An OpenAI-compatible embeddings endpoint.
    Api(ApiOptions),
}

/// What the stores need to know of a model: the id vectors are cached and
/// stored under, and their size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelIdentity {
    pub id: String,
    pub dims: usize,
}

impl ModelSource {
    /// The default: the installed all-MiniLM-L6-v2.
    pub fn default_onnx() -> ModelSource {
        ModelSource::Onnx(default_model_dir())
    }

    /// Says which model this is, checking that it can be used: an ONNX model
    /// and the runtime are in place (nothing is loaded), an endpoint has its
    /// dims configured or answers one short text.
    pub fn identify(&self) -> Result<ModelIdentity> {
        match self {
            ModelSource::Onnx(dir) => check_installed(dir).map(|m| ModelIdentity { id: m.id, dims: m.dims }),
            ModelSource::Api(opts) => {
                if opts.model.trim().is_empty() {
                    return Err(EmbedError::Api { url: opts.endpoint(), message: "no model named: set `git config rag.embed.model`".into() });
                }
                let dims = match opts.dims {
                    Some(d) => d,
                    None => ApiEmbedder::new(opts.clone()).dims()?,
                };
                Ok(ModelIdentity { id: opts.model_id(), dims })
            }
        }
    }

    /// The directory models are kept in, where a reranker is looked for
    /// beside the embedding model (the default one's, for an endpoint).
    pub fn local_dir(&self) -> PathBuf {
        match self {
            ModelSource::Onnx(dir) => dir.clone(),
            ModelSource::Api(_) => default_model_dir(),
        }
    }

    /// One line for people: the provider and where it is.
    pub fn describe(&self) -> String {
        match self {
            ModelSource::Onnx(dir) => format!("onnx {}", dir.display()),
            ModelSource::Api(o) => format!("api {} at {}", o.model, o.endpoint()),
        }
    }
}

/// A model ready to embed, in-process or behind an endpoint.
// One per process: the in-process model's size costs nothing boxing would save.
#[allow(clippy::large_enum_variant)]
pub enum Embedder {
    Onnx(OnnxEmbedder),
    Api(ApiEmbedder),
}

impl Embedder {
    /// Loads the ONNX model, or makes a client of the endpoint (which sends nothing yet).
    pub fn open(source: &ModelSource, opts: EmbedOptions) -> Result<Embedder> {
        match source {
            ModelSource::Onnx(dir) => OnnxEmbedder::load(dir, opts).map(Embedder::Onnx),
            ModelSource::Api(o) => Ok(Embedder::Api(ApiEmbedder::new(o.clone()))),
        }
    }

    /// The id vectors are cached and stored under.
    pub fn model_id(&self) -> String {
        match self {
            Embedder::Onnx(e) => e.manifest.id.clone(),
            Embedder::Api(e) => e.options().model_id(),
        }
    }

    /// Embeds documents (chunks, symbol headers), with the document prefix.
    pub fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        match self {
            Embedder::Onnx(e) => e.embed_documents(texts),
            Embedder::Api(e) => e.embed_documents(texts),
        }
    }

    /// Tokens the in-process model has run on since it was loaded; `None`
    /// for an endpoint (its server counts them).
    pub fn token_work(&self) -> Option<TokenWork> {
        match self {
            Embedder::Onnx(e) => Some(e.token_work()),
            Embedder::Api(_) => None,
        }
    }

    /// Embeds a query, with the query prefix.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        match self {
            Embedder::Onnx(e) => e.embed_query(text),
            Embedder::Api(e) => e.embed_query(text),
        }
    }

    /// Embeds a query for a store of `dims`-dimensional vectors: a model
    /// that gives another size is a clear error, not a failed search.
    pub fn embed_query_for(&self, text: &str, dims: usize) -> Result<Vec<f32>> {
        let v = self.embed_query(text)?;
        if v.len() != dims {
            let from = match self {
                Embedder::Onnx(e) => format!("the model {}", e.manifest.id),
                Embedder::Api(e) => format!("the embedding endpoint {}", e.options().endpoint()),
            };
            return Err(EmbedError::Dims { from, got: v.len(), expected: dims });
        }
        Ok(v)
    }
}

/// What the model was run on: tokens it read and the padded tensor cells it
/// computed (rows × the longest row, per batch); their difference is waste.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TokenWork {
    pub batches: u64,
    pub tokens: u64,
    pub padded_tokens: u64,
}

impl TokenWork {
    /// What was done between `earlier` and `self`.
    pub fn since(self, earlier: TokenWork) -> TokenWork {
        TokenWork {
            batches: self.batches.saturating_sub(earlier.batches),
            tokens: self.tokens.saturating_sub(earlier.tokens),
            padded_tokens: self.padded_tokens.saturating_sub(earlier.padded_tokens),
        }
    }
}

/// A loaded ONNX model, ready to embed.
pub struct OnnxEmbedder {
    /// Side-by-side sessions; the first is loaded with the model.
    sessions: Vec<Mutex<Option<Session>>>,
    onnx: PathBuf,
    opts: EmbedOptions,
    tokenizer: Tokenizer,
    manifest: ModelManifest,
    batch_size: usize,
    wants_token_types: bool,
    /// Everything this model has run on since it was loaded.
    work: Mutex<TokenWork>,
}

impl OnnxEmbedder {
    /// Loads the model in `model_dir` with the runtime at [`runtime_library`].
    pub fn load(model_dir: &Path, opts: EmbedOptions) -> Result<OnnxEmbedder> {
        let manifest = ModelManifest::load(model_dir)?;
        let onnx = model_dir.join(&manifest.onnx);
        let tok_path = model_dir.join(&manifest.tokenizer);
        if !onnx.exists() {
            return Err(EmbedError::NoModel { path: onnx });
        }
        let session = open_session(&onnx, &manifest, opts)?;
        let wants_token_types = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| EmbedError::Tokenizer { path: tok_path.clone(), message: e.to_string() })?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: manifest.max_tokens, ..Default::default() }))
            .map_err(|e| EmbedError::Tokenizer { path: tok_path.clone(), message: e.to_string() })?;
        tokenizer.with_padding(None);
        let batch_size = opts.batch_size.min(manifest.max_batch.unwrap_or(usize::MAX)).max(1);
        let mut sessions: Vec<Mutex<Option<Session>>> = (0..opts.sessions.max(1)).map(|_| Mutex::new(None)).collect();
        sessions[0] = Mutex::new(Some(session));
        Ok(OnnxEmbedder { sessions, onnx, opts, tokenizer, manifest, batch_size, wants_token_types, work: Mutex::new(TokenWork::default()) })
    }

    pub fn manifest(&self) -> &ModelManifest {
        &self.manifest
    }

    /// Embeds documents (chunks, symbol headers), with the document prefix.
    pub fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", self.manifest.document_prefix)).collect();
        self.embed_raw(&prefixed)
    }

    /// Embeds a query, with the query prefix.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let mut v = self.embed_raw(&[format!("{}{text}", self.manifest.query_prefix)])?;
        v.pop().ok_or_else(|| EmbedError::Inference("no vector for the query".into()))
    }

    /// Tokenizes everything, then embeds it ([`Self::embed_encodings`]).
    fn embed_raw(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self.tokenize(texts)?;
        let refs: Vec<&tokenizers::Encoding> = encodings.iter().collect();
        self.embed_encodings(&refs)
    }

    /// Runs batches of similar length (padding costs compute), spread over
    /// the sessions side by side, and returns vectors in input order.
    pub fn embed_encodings(&self, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let batches: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let workers = self.sessions.len().min(batches.len());
        let run_share = |slot: &Mutex<Option<Session>>| -> Result<Vec<(usize, Vec<f32>)>> {
            let mut guard = slot.lock().map_err(|_| EmbedError::Inference("the model session was poisoned".into()))?;
            if guard.is_none() {
                let opened = open_session(&self.onnx, &self.manifest, self.opts);
                failed.fetch_or(opened.is_err(), Ordering::Relaxed);
                *guard = Some(opened?);
            }
            let session = guard.as_mut().ok_or_else(|| EmbedError::Inference("no model session".into()))?;
            let mut done = Vec::new();
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= batches.len() || failed.load(Ordering::Relaxed) {
                    return Ok(done);
                }
                let encs: Vec<&tokenizers::Encoding> = batches[b].iter().map(|&i| encodings[i]).collect();
                match self.run_batch(session, &encs) {
                    Ok(vectors) => done.extend(batches[b].iter().copied().zip(vectors)),
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        };
        let shares: Vec<Result<Vec<(usize, Vec<f32>)>>> = if workers <= 1 {
            vec![run_share(&self.sessions[0])]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self.sessions[..workers].iter().map(|slot| scope.spawn(|| run_share(slot))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(EmbedError::Inference("an embedding thread panicked".into())))).collect()
            })
        };
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); encodings.len()];
        for share in shares {
            for (i, v) in share? {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// Tokenizes (in parallel), truncated to the model's window. Exposed for
    /// the throughput benchmark, which times inference alone as a reference.
    pub fn tokenize(&self, texts: &[String]) -> Result<Vec<tokenizers::Encoding>> {
        let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
        self.tokenizer.encode_batch(inputs, true).map_err(|e| EmbedError::Inference(e.to_string()))
    }

    /// One inference call on a batch of encodings, on the first session: the model alone.
    pub fn infer(&self, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let mut guard = self.sessions[0].lock().map_err(|_| EmbedError::Inference("the model session was poisoned".into()))?;
        let session = guard.as_mut().ok_or_else(|| EmbedError::Inference("no model session".into()))?;
        self.run_batch(session, batch)
    }

    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// Everything this model has run on since it was loaded.
    pub fn token_work(&self) -> TokenWork {
        self.work.lock().map(|w| *w).unwrap_or_default()
    }

    fn run_batch(&self, session: &mut Session, encs: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let PaddedBatch { rows, cols, ids, mask, types } = PaddedBatch::of(encs);
        if let Ok(mut w) = self.work.lock() {
            w.batches += 1;
            w.tokens += mask.iter().map(|&m| m as u64).sum::<u64>();
            w.padded_tokens += (rows * cols) as u64;
        }
        let err = |e: ort::Error| EmbedError::Inference(e.to_string());
        let shape = [rows as i64, cols as i64];
        let ids_t = Tensor::from_array((shape, ids)).map_err(err)?;
        let mask_t = Tensor::from_array((shape, mask.clone())).map_err(err)?;
        let outputs = if self.wants_token_types {
            let types_t = Tensor::from_array((shape, types)).map_err(err)?;
            session.run(ort::inputs!["input_ids" => ids_t, "attention_mask" => mask_t, "token_type_ids" => types_t]).map_err(err)?
        } else {
            session.run(ort::inputs!["input_ids" => ids_t, "attention_mask" => mask_t]).map_err(err)?
        };
        let (out_shape, data) = outputs[0].try_extract_tensor::<f32>().map_err(err)?;
        let dims: Vec<usize> = out_shape.iter().map(|&d| d.max(0) as usize).collect();
        let mut vectors = match dims.as_slice() {
            // Already pooled: [batch, dims].
            [b, d] if *b == rows => (0..rows).map(|r| data[r * d..(r + 1) * d].to_vec()).collect::<Vec<_>>(),
            // Token vectors: [batch, tokens, dims].
            [b, t, d] if *b == rows => pool(data, &mask, rows, *t, *d, cols, self.manifest.pooling),
            other => return Err(EmbedError::Inference(format!("unexpected model output shape {other:?}"))),
        };
        for v in &mut vectors {
            if v.len() != self.manifest.dims {
                return Err(EmbedError::Inference(format!("the model gives {} dimensions, its manifest says {}", v.len(), self.manifest.dims)));
            }
            if self.manifest.normalize {
                normalize(v);
            }
        }
        Ok(vectors)
    }
}

/// One ONNX Runtime session of the graph at `onnx`, as `opts` and the
/// model's manifest allow.
fn open_session(onnx: &Path, manifest: &ModelManifest, opts: EmbedOptions) -> Result<Session> {
    let env = environment(&runtime_library())?;
    let model_err = |message: String| EmbedError::Model { path: onnx.to_path_buf(), message };
    let mut builder = Session::builder(env).map_err(|e| model_err(e.to_string()))?;
    if !opts.optimize_graph || manifest.optimize == Some(false) {
        builder = builder
            .with_optimization_level(ort::session::builder::GraphOptimizationLevel::Disable)
            .map_err(|e| model_err(ort::Error::<()>::from(e).to_string()))?;
    }
    builder
        .with_intra_threads(opts.threads.max(1))
        .map_err(|e| model_err(ort::Error::<()>::from(e).to_string()))?
        .with_intra_op_spinning(false)
        .map_err(|e| model_err(ort::Error::<()>::from(e).to_string()))?
        .commit_from_file(onnx)
        .map_err(|e| model_err(e.to_string()))
}

/// An embedder loaded on first use: a run whose texts are all in the
/// vector cache (a rename, a revert) never loads the model.
pub struct LazyEmbedder {
    source: ModelSource,
    opts: EmbedOptions,
    loaded: Option<Embedder>,
}

impl LazyEmbedder {
    pub fn new(source: &ModelSource, opts: EmbedOptions) -> LazyEmbedder {
        LazyEmbedder { source: source.clone(), opts, loaded: None }
    }

    /// An embedder that is already loaded.
    pub fn from_loaded(embedder: Embedder) -> LazyEmbedder {
        LazyEmbedder { source: ModelSource::Onnx(PathBuf::new()), opts: EmbedOptions::default(), loaded: Some(embedder) }
    }

    pub fn get(&mut self) -> Result<&Embedder> {
        if self.loaded.is_none() {
            self.loaded = Some(Embedder::open(&self.source, self.opts)?);
        }
        self.loaded.as_ref().ok_or_else(|| EmbedError::Inference("the model did not load".into()))
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// The loaded model's [`Embedder::token_work`]; `None` before it is loaded.
    pub fn token_work(&self) -> Option<TokenWork> {
        self.loaded.as_ref().and_then(Embedder::token_work)
    }
}

/// Checks, without loading anything, that a model and the runtime are in
/// place; returns the model's manifest.
pub fn check_installed(model_dir: &Path) -> Result<ModelManifest> {
    let manifest = ModelManifest::load(model_dir)?;
    let onnx = model_dir.join(&manifest.onnx);
    if !onnx.exists() {
        return Err(EmbedError::NoModel { path: onnx });
    }
    let lib = runtime_library();
    if !lib.exists() {
        return Err(EmbedError::NoRuntime { path: lib });
    }
    Ok(manifest)
}

fn pool(data: &[f32], mask: &[i64], rows: usize, tokens: usize, dims: usize, cols: usize, pooling: Pooling) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|r| {
            let row = &data[r * tokens * dims..(r + 1) * tokens * dims];
            match pooling {
                Pooling::Cls => row[..dims].to_vec(),
                Pooling::Mean => {
                    let mut sum = vec![0f32; dims];
                    let mut n = 0f32;
                    for t in 0..tokens.min(cols) {
                        if mask[r * cols + t] == 0 {
                            continue;
                        }
                        n += 1.0;
                        for (s, x) in sum.iter_mut().zip(&row[t * dims..(t + 1) * dims]) {
                            *s += x;
                        }
                    }
                    let n = n.max(1.0);
                    sum.iter_mut().for_each(|s| *s /= n);
                    sum
                }
            }
        })
        .collect()
}

pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity (dot product of normalised vectors).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_broken_manifests_name_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let err = ModelManifest::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("git rag model install"), "{err}");
        std::fs::write(dir.path().join("manifest.json"), b"{\"id\": 3}").unwrap();
        let err = ModelManifest::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("invalid") && err.contains("--force"), "{err}");
    }

    #[test]
    fn mean_pooling_respects_the_mask() {
        // One row, three tokens of two dims; the last token is padding.
        let data = [1.0, 2.0, 3.0, 4.0, 100.0, 100.0];
        let mask = [1, 1, 0];
        let v = pool(&data, &mask, 1, 3, 2, 3, Pooling::Mean);
        assert_eq!(v, vec![vec![2.0, 3.0]]);
        let mut n = vec![3.0, 4.0];
        normalize(&mut n);
        assert!((n[0] - 0.6).abs() < 1e-6 && (n[1] - 0.8).abs() < 1e-6);
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
    }
}

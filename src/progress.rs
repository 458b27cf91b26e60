//! Progress and notices, pushed by the library into a sink the caller
//! supplies (as gitoxide passes `Progress`, as ripgrep's searcher pushes into
//! a `Sink`). The library never prints: the CLI draws bars on a terminal, the
//! hooks runner writes lines into its log, the MCP server stays silent.

/// Milliseconds since `since`: how every step's timing is reported.
pub fn millis(since: std::time::Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// A long step of a run, with a count of units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Reading, parsing and chunking files, and adding them to the keyword index.
    Analyze,
    /// Embedding texts the vector cache does not hold.
    Embed,
    /// Reading commits into the history store.
    History,
}

impl Step {
    /// What the step does, for a progress line.
    pub fn label(self) -> &'static str {
        match self {
            Step::Analyze => "indexing files",
            Step::Embed => "embedding texts",
            Step::History => "reading history",
        }
    }
}

/// How much memory an index run is about to touch, as soon as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunSize {
    /// A commit's few files (the usual run, in the background after every
    /// `git commit`): it touches little memory, in small pieces.
    Small,
    /// A full index or many files: it touches gigabytes.
    Large,
}

/// Where a run reports what it is doing. Every method has an empty default,
/// so a sink implements only what it shows. Called from worker threads.
pub trait Progress: Sync {
    /// `step` begins, with `total` units to do.
    fn begin(&self, _step: Step, _total: u64) {}
    /// `n` more units of the current step are done.
    fn advance(&self, _n: u64) {}
    /// The current step is over.
    fn end(&self) {}
    /// Something the user should know: why a rebuild is full, a layer that
    /// is off, a download that starts.
    fn note(&self, _message: &str) {}
    /// The run's size: first a guess from the options (not a full index:
    /// small), then the planned one. The library sets no process policy
    /// itself; a binary that owns its process may (the CLI turns transparent
    /// huge pages off for small runs; the MCP server leaves its pages alone).
    fn run_size(&self, _size: RunSize) {}
}

/// A sink that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

//! The CLI's progress sinks: bars with rate and ETA on a terminal, plain
//! notices otherwise, nothing with `--quiet`; the hooks runner's lines in its log.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

use git_rag::{Progress, RunSize, Step};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Steps shorter than this draw no bar: it would only flicker.
const MIN_UNITS_FOR_BAR: u64 = 200;

/// Progress on stderr: notices as `git-rag: …` lines, and a bar per long
/// step when stderr is a terminal.
pub struct Terminal {
    quiet: bool,
    bars: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    /// `quiet`: show nothing at all.
    pub fn new(quiet: bool) -> Terminal {
        Terminal { quiet, bars: !quiet && std::io::stderr().is_terminal(), bar: Mutex::new(None) }
    }
}

impl Progress for Terminal {
    fn begin(&self, step: Step, total: u64) {
        if !self.bars || total < MIN_UNITS_FOR_BAR {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("git-rag: {msg} {bar:30} {pos}/{len} ({per_sec}, {eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(step.label());
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, n: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(n);
            }
        }
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }

    fn note(&self, message: &str) {
        if self.quiet {
            return;
        }
        match self.bar.lock().ok().and_then(|s| s.clone()) {
            Some(bar) => bar.suspend(|| eprintln!("git-rag: {message}")),
            None => eprintln!("git-rag: {message}"),
        }
    }

    fn run_size(&self, size: RunSize) {
        crate::pages::follow(size);
    }
}

/// The hooks runner's sink: notices as lines of `hook.log`, no bars.
pub struct HookLog {
    pub index_dir: PathBuf,
}

impl Progress for HookLog {
    fn note(&self, message: &str) {
        git_rag::hooks::log(&self.index_dir, message);
    }

    fn run_size(&self, size: RunSize) {
        crate::pages::follow(size);
    }
}

//! `git rag man`: the man pages, made from the same clap definitions as
//! `--help`, so they never drift. git turns `git rag --help` into
//! `man git-rag`; `scripts/install.sh` writes the pages into
//! `<cargo root>/share/man/man1`, where man finds them for a binary in
//! `<cargo root>/bin` on the PATH. `git rag help` needs none of them.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::args::Cli;

/// Writes `git-rag.1` and a `git-rag-<command>.1` per command into `dir`,
/// or prints `git-rag.1` on stdout.
pub fn run(dir: Option<&Path>) -> Result<ExitCode> {
    let cmd = Cli::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, dir).with_context(|| format!("writing the man pages into {}", dir.display()))?;
            eprintln!("git-rag: man pages written into {}", dir.display());
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::stdout().lock().write_all(&page)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

//! The process's page policy while indexing: a decision of the binary that
//! owns the process, made from the run size the library reports
//! ([`git_rag::Progress::run_size`]).
//!
//! With transparent huge pages every 2 MiB region the allocator touches is
//! zeroed and resident whole: a one-file commit on a 9,000-file repository,
//! which runs in the background after every `git commit`, peaked at ~114 MB
//! instead of ~70 MB and spent a fifth of its time zeroing them. A big run
//! keeps them: a full index is ~15% faster with them. The CLI and the hooks
//! runner follow the run's size; the MCP server, a long-lived process doing
//! other work, leaves its pages alone.

use git_rag::RunSize;

/// Asks the kernel for 4 KiB pages for a small run, and lets it use
/// transparent huge pages again for a large one, for what the process
/// touches from now on.
#[cfg(target_os = "linux")]
pub fn follow(size: RunSize) {
    let small = size == RunSize::Small;
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this
    // process's page policy; its result (an unsupported kernel) does not matter.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(small), 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
pub fn follow(_size: RunSize) {}

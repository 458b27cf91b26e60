//! A pass over a file held to a pace: how long a parse or a tags query may
//! have taken on reaching each byte (`tags::PARSE_TIME_PER_BYTE`,
//! `tags::QUERY_TIME_PER_BYTE`), counted in the thread's CPU time.
//!
//! Why CPU time: a loaded machine (two indexers, a build beside them)
//! stretches wall time several-fold and would give up sound parses; the
//! thread's own CPU clock barely moves. This module holds the library's only
//! `unsafe` block and its only use of `libc` (reading that clock on unix;
//! ARCHITECTURE.md, "Dependency direction"; `tests/architecture.rs` holds
//! both to this file).

/// The bytes whose time every parse and query gets on top of its own (0.26 s): a
/// small file's parse never meets the limit.
pub(crate) const TIME_FLOOR_BYTES: u32 = 256 << 10;

/// How long a parse, or a query, may have taken on reaching byte `offset`
/// (`per_byte` for each byte, plus [`TIME_FLOOR_BYTES`]' worth).
fn time_limit(per_byte: std::time::Duration, offset: usize) -> std::time::Duration {
    per_byte.saturating_mul(u32::try_from(offset).unwrap_or(u32::MAX).saturating_add(TIME_FLOOR_BYTES))
}

/// A clock for one pass over a file (its parse, its query), started with
/// it: whether the pass has run past its pace on reaching a byte.
pub(crate) struct Pace {
    per_byte: std::time::Duration,
    started: std::time::Instant,
    started_cpu: Option<std::time::Duration>,
    /// Set once the pass was past its pace at some byte.
    late: std::cell::Cell<bool>,
}

impl Pace {
    pub(crate) fn start(per_byte: std::time::Duration) -> Self {
        Pace { per_byte, started: std::time::Instant::now(), started_cpu: thread_cpu_time(), late: std::cell::Cell::new(false) }
    }

    /// Whether the pass, on reaching byte `offset`, has taken longer than
    /// its limit there, in CPU time. Asked for its CPU time (a system call)
    /// only once past the limit in wall time, which never runs slower.
    pub(crate) fn past(&self, offset: usize) -> bool {
        let limit = time_limit(self.per_byte, offset);
        let late = self.late.get()
            || (self.started.elapsed() > limit && self.started_cpu.zip(thread_cpu_time()).is_none_or(|(from, now)| now.saturating_sub(from) > limit));
        self.late.set(late);
        late
    }

    /// Whether the pass was past its pace at some byte it was asked about.
    pub(crate) fn was_late(&self) -> bool {
        self.late.get()
    }
}

/// The CPU time this thread has run: what a parse costs, whatever else the
/// machine is doing. `None` where the platform has no thread clock.
fn thread_cpu_time() -> Option<std::time::Duration> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `clock_gettime` only writes the `timespec` it is given.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        let (secs, nanos) = (u64::try_from(now.tv_sec).ok()?, u32::try_from(now.tv_nsec).ok()?);
        (status == 0).then(|| std::time::Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

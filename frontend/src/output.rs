//! Results on stdout, written so that a reader who stops early (`git rag
//! query foo | head -1`) ends the program quietly, as it ends `git log`:
//! `println!` would panic on the closed pipe. [`outln!`] and [`out!`] return
//! the write's error from the enclosing function; `main` recognises a broken
//! pipe anywhere in an error's chain with [`is_broken_pipe`] and exits with
//! the status a shell shows for a process ended by SIGPIPE.

use std::io::{self, Write};

/// The exit status of a program ended by SIGPIPE (128 + 13), as `git log | head` leaves it.
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// Writes `args` to stdout.
pub fn write(args: std::fmt::Arguments<'_>) -> io::Result<()> {
    io::stdout().lock().write_fmt(args)
}

/// Writes `args` and a newline to stdout.
pub fn write_line(args: std::fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)?;
    out.write_all(b"\n")
}

/// Whether `error` (or anything it wraps) is a write to a closed pipe.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

/// `println!` that returns a failed write (`?`) instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::write_line(format_args!(""))?
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*))?
    };
}

/// `print!` that returns a failed write (`?`) instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*))?
    };
}

pub(crate) use {out, outln};

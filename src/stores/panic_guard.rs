//! The boundary where a dependency's panic on damaged bytes becomes an
//! error value (ARCHITECTURE.md I22: a damaged store is an error, never
//! a panic). Below both the health checks and the redb handles, which use
//! it.

/// Runs `read` on a store that may be damaged: a panic inside (a
/// dependency's decoder meeting bytes it never wrote) becomes `damaged`'s
/// error instead of taking the process down.
pub fn guard<T, E>(read: impl FnOnce() -> Result<T, E>, damaged: impl FnOnce(String) -> E) -> Result<T, E> {
    GUARDED.with(|depth| depth.set(depth.get() + 1));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    GUARDED.with(|depth| depth.set(depth.get() - 1));
    match outcome {
        Ok(result) => result,
        Err(panic) => Err(damaged(panic_message(panic.as_ref()))),
    }
}

thread_local! {
    /// How many [`guard`]s this thread is inside.
    static GUARDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether a panic on this thread now is caught by a [`guard`] (and
/// reported as its error): a binary's panic hook stays quiet then.
pub fn panic_is_caught() -> bool {
    GUARDED.with(|depth| depth.get() > 0)
}

/// What a caught panic says of the store, in plain words: its bytes are not
/// what the reader wrote. The dependency's own words (often "internal
/// error: entered unreachable code") follow, for a bug report.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
    format!("its bytes do not read back as written (the reader stopped: {})", text.unwrap_or_else(|| "no message".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_a_guarded_read_is_an_error_in_plain_words() {
        let r: Result<(), String> = guard(|| panic!("internal error: entered unreachable code"), |m| m);
        assert_eq!(r, Err("its bytes do not read back as written (the reader stopped: internal error: entered unreachable code)".to_string()));
        assert!(!panic_is_caught(), "the guard's depth is back to 0 after a panic");
        let r: Result<u8, String> = guard(|| Ok(3), |m| m);
        assert_eq!(r, Ok(3));
    }
}

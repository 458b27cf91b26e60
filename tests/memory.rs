//! Memory during a full index run is bounded by its batches, not by the
//! repository: the most a run holds at once (the keyword writer's arenas,
//! the code graph's facts, resolution and lookup tables, the state) is
//! measured on a generated repository and on one twice its size, with small
//! bounds ([`git_rag::MemoryBounds`]), and with the graph held at once.
//!
//! A binary of its own: a global allocator counts every allocation of the
//! process, so nothing else may run in it (the other integration tests are
//! one binary, `tests.rs`).

#[path = "common/mod.rs"]
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use common::TestRepo;

/// The system allocator, counting the bytes live and their most since a reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are only read by the test.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `files` modules of `functions` functions each; every function calls one
/// of its own module's and one imported from each of two other modules.
fn generated_repo(files: usize, functions: usize) -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..files {
        let (a, b) = ((i * 7 + 1) % files, (i * 13 + 5) % files);
        let mut text = format!("from pkg.mod{a} import fn{a}_0\nfrom pkg.mod{b} import fn{b}_1\n\n");
        for j in 0..functions {
            text.push_str(&format!(
                "def fn{i}_{j}(value, limit):\n    total = fn{i}_{next}(value) + fn{a}_0(limit) + fn{i}_{prev}(limit)\n    return fn{b}_1(total)\n\n",
                next = (j + 1) % functions,
                prev = (j + functions - 1) % functions,
            ));
        }
        repo.write(&format!("pkg/mod{i}.py"), text);
    }
    repo.commit("generated");
    repo
}

/// The most bytes a full run of `repo` held at once beyond what was live before it.
fn run_peak(repo: &TestRepo, bounds: git_rag::MemoryBounds) -> usize {
    let ws = git_rag::Workspace::discover(&git_rag::Overrides { directory: Some(repo.path().to_path_buf()), ..Default::default() }).expect("workspace");
    let mut opts = ws.index_options(std::time::Duration::from_secs(10));
    opts.semantic.enabled = false;
    opts.full = true;
    opts.memory = bounds;
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    git_rag::index(&ws.repo, &ws.index_dir, &opts, &git_rag::Silent).expect("full index");
    PEAK.load(Relaxed).saturating_sub(before)
}

#[test]
fn a_repository_twice_the_size_does_not_need_twice_the_memory() {
    // As many keyword writer threads, each with its smallest arena, on any
    // machine: the arenas together are the keyword side's bound.
    // SAFETY: the only test of this binary, before any thread starts.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "2") };
    const FILES: usize = 800;
    const FUNCTIONS: usize = 40;
    let (small, large) = (generated_repo(FILES, FUNCTIONS), generated_repo(2 * FILES, FUNCTIONS));
    // The keyword writer's smallest arena (it writes a segment whenever it is full) in both.
    let bounded = git_rag::MemoryBounds { keyword_heap_bytes: 0, graph_files_per_batch: 32, graph_sort_run_bytes: 256 << 10 };
    let unbounded = git_rag::MemoryBounds { graph_files_per_batch: usize::MAX, graph_sort_run_bytes: usize::MAX, ..bounded };
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    // The least of three runs each: two threads' timing can add a passing
    // overlap that says nothing of what a run needs (seen once in CI:
    // 53.8 -> 67.4 MiB, where five other runs gave 55-58 -> 58-59).
    let least = |repo: &TestRepo| (0..3).map(|_| run_peak(repo, bounded)).min().unwrap_or(usize::MAX);
    let (b1, b2) = (least(&small), least(&large));
    let (u1, u2) = (run_peak(&small, unbounded), run_peak(&large, unbounded));
    let figures = format!("bounded {:.1} -> {:.1} MiB, everything at once {:.1} -> {:.1} MiB", mib(b1), mib(b2), mib(u1), mib(u2));
    eprintln!("{figures}");
    // The measure sees what a run holds: everything at once grows with the repository.
    assert!(u2 as f64 > 1.5 * u1 as f64, "holding everything at once did not grow with the repository: {figures}");
    // In batches, twice the files add less than a quarter.
    assert!((b2 as f64) < 1.25 * b1 as f64, "memory in batches grew with the repository: {figures}");
}

#!/usr/bin/env bash
# Keyword+symbol indexing speed (`--no-semantic`; scripts/bench-semantic.sh
# measures the embedding layer) on the eval kit's `large` corpus (~9,300 files, ~83 MB):
#  1. full keyword+symbol index, N runs (median): files/s, MB/s, wall and CPU;
#     reference in the same run: `git archive HEAD` (reading every blob once).
#     Then once: `large` twice over (two copies side by side in one tree,
#     ~18,600 files), for how peak memory grows with the repository.
#  2. one-file commits on a local clone, M files spread through the repository
#     (median, and the slowest), of two kinds: a definition added, and a line
#     inserted at the top (definitions moved, none changed): the work time
#     git-rag reports (took_ms) and the process wall time; reference: the
#     `git commit` that made the change.
# Quote medians: the machine is shared and noisy. GIT_RAG_BIN uses an existing
# binary (e.g. an older build, to compare before and after on the same machine).
#   scripts/bench-index.sh [RUNS=3] [COMMITS=15]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
runs="${1:-3}"; commits="${2:-15}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
EVAL_DIR="$(cd "${GIT_RAG_EVAL_DIR:-../shared/eval}" && pwd)"
CORPORA="${CORPORA:-$HOME/.cache/git-rag-eval-corpora}"
if [ -z "${GIT_RAG_BIN:-}" ]; then
  cargo build --release --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}"
large="$CORPORA/large"
[ -d "$large/.git" ] || python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/large.json" "$large" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$bin" "$large" "$work" "$runs" "$commits" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
bin_, large, work, runs, commits = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
           GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")

def timed(cmd, cwd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p.stdout

def full_index(repo, idx):
    """A full keyword+symbol index of `repo`: wall, CPU, report, peak RSS (MB)."""
    wall, cpu, out = timed(["/usr/bin/time", "-f", "%M", "-o", idx + ".rss", bin_, "index", "--full", "-q", "--json", "--no-semantic", "--index-dir", idx], repo)
    with open(idx + ".rss") as fh:
        rss = int(fh.read().strip().splitlines()[-1]) / 1024
    subprocess.run(["rm", "-rf", idx, idx + ".rss"])
    return wall, cpu, json.loads(out), rss

print(f"machine: {os.cpu_count()} cores")
full = []
for i in range(runs):
    idx = os.path.join(work, f"full{i}")
    ref_wall, _, _ = timed(["sh", "-c", "git archive HEAD | wc -c"], large)
    wall, cpu, rep, rss = full_index(large, idx)
    full.append((wall, cpu, rep, ref_wall, rss))
    print(f"full run {i+1}: {rep['files_indexed']} files, {rep['bytes_indexed']/1e6:.1f} MB, wall {wall:.2f}s cpu {cpu:.2f}s, "
          f"peak RSS {rss:.0f} MB, git archive {ref_wall:.2f}s", flush=True)
wall = statistics.median(f[0] for f in full)
cpu = statistics.median(f[1] for f in full)
ref = statistics.median(f[3] for f in full)
rss = statistics.median(f[4] for f in full)
rep = full[0][2]
files, mb = rep["files_indexed"], rep["bytes_indexed"] / 1e6
print(f"FULL (median of {runs}): {files/wall:.0f} files/s, {mb/wall:.1f} MB/s wall; {cpu:.1f} CPU-s; peak RSS {rss:.0f} MB; "
      f"{files} files, {rep['chunks_total']} chunks, {rep['symbols_total']} symbols; "
      f"ratio to `git archive HEAD`: {wall/ref:.1f}x")
print("  timings of run 1 (ms):", json.dumps(rep["timings"]))

# `large` twice over: one commit whose tree holds two copies of it (`a/`,
# `b/`), made with plumbing in a clone that borrows large's objects.
twice = os.path.join(work, "twice")
subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", large, twice], check=True, env=env)
tree = subprocess.run(["git", "rev-parse", "HEAD^{tree}"], cwd=twice, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
both = subprocess.run(["git", "mktree"], cwd=twice, env=env, input=f"040000 tree {tree}\ta\n040000 tree {tree}\tb\n",
                      stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
commit = subprocess.run(["git", "commit-tree", both, "-m", "large twice"], cwd=twice, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
subprocess.run(["git", "update-ref", "HEAD", commit], cwd=twice, env=env, check=True)
ref2, _, _ = timed(["sh", "-c", "git archive HEAD | wc -c"], twice)
wall2, cpu2, rep2, rss2 = full_index(twice, os.path.join(work, "full-twice"))
print(f"FULL, large twice over (1 run): {rep2['files_indexed']} files in {wall2:.1f}s ({rep2['files_indexed']/wall2:.0f} files/s, "
      f"ratio to `git archive HEAD` {wall2/ref2:.1f}x); peak RSS {rss2:.0f} MB = {rss2/rss:.2f}x that of one copy", flush=True)
subprocess.run(["rm", "-rf", twice])

clone = os.path.join(work, "clone")
subprocess.run(["git", "clone", "-q", "--local", large, clone], check=True, env=env)
idx = os.path.join(work, "inc")
timed([bin_, "index", "-q", "--no-semantic", "--index-dir", idx], clone)
files = subprocess.run(["git", "ls-files", "*.py"], cwd=clone, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout.split()
# Two kinds of one-file commit on the same files: a definition appended (the
# file's definitions change) and a comment line inserted at the top (every
# definition moves, none changes: the graph updates the file in place).
edits = {
    "definition added": lambda text, i: text + f"\n\ndef bench_added_{i}(x):\n    return x + {i}\n",
    "line inserted at the top": lambda text, i: f"# bench {i}\n" + text,
}
for kind, edit in edits.items():
    took, walls, commit_walls, rss, slowest = [], [], [], [], (0, "")
    for i in range(commits):
        f = files[(i * 7919) % len(files)]
        path = os.path.join(clone, f)
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(edit(text, i))
        cw, _, _ = timed(["git", "commit", "-q", "-am", f"bench {kind} {i}"], clone)
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", bin_, "index", "-q", "--json", "--no-semantic", "--index-dir", idx],
                           cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True, text=True)
        w = time.perf_counter() - t0
        rss.append(int(p.stderr.strip().splitlines()[-1]) / 1024)
        rep = json.loads(p.stdout)
        assert rep["files_indexed"] == 1, rep
        took.append(rep["took_ms"]); walls.append(w * 1000); commit_walls.append(cw * 1000)
        slowest = max(slowest, (rep["took_ms"], f))
    print(f"ONE-FILE COMMIT, {kind} (median of {commits}): work {statistics.median(took):.1f} ms (took_ms), "
          f"process wall {statistics.median(walls):.1f} ms; slowest {slowest[0]:.0f} ms ({slowest[1]}); "
          f"peak RSS {statistics.median(rss):.0f} MB; "
          f"the `git commit` itself {statistics.median(commit_walls):.1f} ms "
          f"(ratio {statistics.median(walls)/statistics.median(commit_walls):.1f}x)")
    print("  timings of the last run (ms):", json.dumps(rep["timings"]))
PY

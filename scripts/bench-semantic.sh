#!/usr/bin/env bash
# Speed of the semantic layer (embedding + embedded Qdrant), medians:
#  1. embedding throughput of the pipeline vs raw ONNX Runtime inference of
#     the same model on the same inputs, same run (benches/embed_throughput.rs);
#  2. full semantic index of `requests` and of a 1,000-file slice of `large`:
#     chunks/s, points/s, embedded texts, index size on disk, peak memory,
#     and when keyword/symbol/graph search answered vs when every vector was in;
#  3. five-file commits on the slice, end to end: ms per commit.
#   scripts/bench-semantic.sh [COMMITS=5]
# GIT_RAG_BIN_BEFORE=<binary> indexes the slice with that binary first, in the
# same run (e.g. a build of the previous release, to compare embedding recipes);
# GIT_RAG_MODEL_BEFORE=<model dir> does so with that model (e.g. the reference
# graph, ~/.cache/git-rag/models/all-MiniLM-L6-v2, against the integer one).
# GIT_RAG_BIN uses an existing binary (else a release build);
# BENCH_PROFILE=dev runs the throughput bench from a dev build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
commits="${1:-5}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
EVAL_DIR="$(cd "${GIT_RAG_EVAL_DIR:-../shared/eval}" && pwd)"
CORPORA="${CORPORA:-$HOME/.cache/git-rag-eval-corpora}"
for c in requests large; do
  [ -d "$CORPORA/$c/.git" ] || python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/$c.json" "$CORPORA/$c" >&2
done
if [ -z "${GIT_RAG_BIN:-}" ]; then
  cargo build --release --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}"

echo "== 1. embedding throughput: pipeline vs raw ONNX Runtime (requests)"
if [ -n "${BENCH_SKIP_THROUGHPUT:-}" ]; then
  echo "(skipped: BENCH_SKIP_THROUGHPUT is set)"
elif [ "${BENCH_PROFILE:-release}" = dev ]; then
  GIT_RAG_BENCH_REPO="$CORPORA/requests" cargo test --locked -q --bench embed_throughput
else
  GIT_RAG_BENCH_REPO="$CORPORA/requests" cargo bench --locked -q --bench embed_throughput
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$bin" "$CORPORA" "$work" "$commits" "${GIT_RAG_BIN_BEFORE:-}" "${GIT_RAG_MODEL_BEFORE:-}" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
bin_, corpora, work, commits, before, model_before = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
           GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")

def run(cmd, cwd, extra_env=None):
    """Wall time, peak RSS (MB) and stdout of a command."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, cwd=cwd, env=dict(env, **(extra_env or {})),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd} failed: {p.stderr}")
    rss = int(p.stderr.strip().splitlines()[-1]) / 1024
    return wall, rss, p.stdout

def du(path):
    """Bytes allocated on disk (Qdrant maps large sparse files: their apparent size is not what they use)."""
    return sum(os.stat(os.path.join(d, f)).st_blocks * 512 for d, _, fs in os.walk(path) for f in fs) / 1e6

def full_index(name, repo, binary=bin_, model=None):
    idx = os.path.join(work, f"idx-{name}")
    # Every full index here embeds everything: the vector cache all worktrees
    # share (<common-dir>/rag-vectors) would hand a second run the first's vectors.
    shutil.rmtree(os.path.join(repo, ".git", "rag-vectors"), ignore_errors=True)
    # A model directory as `git -c rag.model=DIR` would give it.
    extra = {"GIT_CONFIG_PARAMETERS": f"'rag.model'='{model}'"} if model else None
    wall, rss, out = run([binary, "index", "--full", "-q", "--json", "--index-dir", idx], repo, extra)
    rep = json.loads(out)
    pts = sum((rep.get("semantic") or {}).get("points", {}).values())
    print(f"FULL {name}: {rep['files_indexed']} files, {rep['chunks_total']} chunks, {pts} points, "
          f"embedded {rep['embedded']} texts in {wall:.1f}s wall -> {rep['chunks_total']/wall:.1f} chunks/s, "
          f"{pts/wall:.1f} points/s, {rep['embedded']/wall:.1f} embedded/s; index {du(idx):.1f} MB "
          f"(qdrant {du(os.path.join(idx, 'qdrant')):.1f} MB); peak RSS {rss:.0f} MB", flush=True)
    print(f"  search answered after {rep['searchable_ms']/1000:.1f}s (keyword, symbol, graph); every vector in after {rep['took_ms']/1000:.1f}s", flush=True)
    print("  timings (ms):", json.dumps(rep["timings"]), json.dumps((rep.get("semantic") or {}).get("timings")), flush=True)
    done = (rep.get("semantic") or {}).get("work") or {}
    kinds = ", ".join(f"{k} {w['texts']} texts / {w['chars']} chars" for k, w in sorted(done.get("per_kind", {}).items()))
    tok = done.get("tokens")
    if tok:
        waste = 1 - tok["tokens"] / tok["padded_tokens"] if tok["padded_tokens"] else 0.0
        kinds += f"; model ran {tok['tokens']} tokens in {tok['batches']} batches, {tok['padded_tokens']} padded ({waste:.1%} padding)"
    print("  embedded:", kinds, flush=True)
    return idx, wall, (tok or {}).get("tokens")

print("== 2. full semantic index")
full_index("requests", os.path.join(corpora, "requests"))

# A 1,000-file slice of `large` (scripts/bench_slice.py).
sys.path.insert(0, "scripts")
from bench_slice import make_slice
slice_ = make_slice(corpora, work, env)
if before or model_before:
    _, wall_before, tokens_before = full_index("large-slice-1000 (before)", slice_, before or bin_, model_before or None)
idx, wall_after, tokens_after = full_index("large-slice-1000", slice_)
if before or model_before:
    ratio = f"{tokens_after / tokens_before:.2f}x the tokens" if tokens_before and tokens_after else "tokens not reported by both"
    print(f"SLICE: every vector in {wall_after:.0f}s vs {wall_before:.0f}s before ({wall_after / wall_before:.2f}x the time, {ratio})", flush=True)

print(f"== 3. five-file commits on the slice (median of {commits})")
listed = subprocess.run(["git", "ls-files", "-z"], cwd=slice_, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
py = [f for f in listed.split("\0") if f.endswith(".py")]
took, walls, rsss, emb = [], [], [], []
for i in range(commits):
    for j in range(5):
        f = py[(i * 5 + j) * 37 % len(py)]
        with open(os.path.join(slice_, f), "a") as fh:
            fh.write(f"\n\ndef bench_added_{i}_{j}(values):\n    \"\"\"Sum the values twice ({i}).\"\"\"\n    return 2 * sum(values)\n")
    subprocess.run(["git", "commit", "-q", "-am", f"bench {i}"], cwd=slice_, env=env, check=True)
    wall, rss, out = run([bin_, "index", "-q", "--json", "--index-dir", idx], slice_)
    rep = json.loads(out)
    assert rep["files_indexed"] == 5, rep
    took.append(rep["took_ms"]); walls.append(wall * 1000); rsss.append(rss); emb.append(rep["embedded"])
    print(f"  commit {i+1}: {rep['took_ms']:.0f} ms work, {wall*1000:.0f} ms process, embedded {rep['embedded']}, reused {rep['reused']}", flush=True)
print(f"FIVE-FILE COMMIT: work {statistics.median(took):.0f} ms (took_ms), process {statistics.median(walls):.0f} ms, "
      f"embedded {statistics.median(emb):.0f} texts, peak RSS {statistics.median(rsss):.0f} MB")
print("  timings of the last run (ms):", json.dumps(rep["timings"]), json.dumps((rep.get("semantic") or {}).get("timings")))
PY

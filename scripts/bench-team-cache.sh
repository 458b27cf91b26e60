#!/usr/bin/env bash
# A developer's first local index of what CI already embedded, borrowing the
# team's vectors from a Qdrant server (`git config rag.vectorCache server`)
# vs embedding them here; on a 1,000-file slice of `large`, same run:
#  1. CI indexes the slice into the server (`git rag index --ci`), filling the
#     server's vector cache (its time is what a CI runner pays once);
#  2. a full local index embedding everything here (the reference);
#  3. full local indexes borrowing every vector (median of RUNS).
#   QDRANT_URL=http://127.0.0.1:6334 scripts/bench-team-cache.sh [RUNS=3]
# GIT_RAG_BIN uses an existing binary (else a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
runs="${1:-3}"
: "${QDRANT_URL:?set QDRANT_URL to a Qdrant server (gRPC), see the README}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
EVAL_DIR="$(cd "${GIT_RAG_EVAL_DIR:-../shared/eval}" && pwd)"
CORPORA="${CORPORA:-$HOME/.cache/git-rag-eval-corpora}"
[ -d "$CORPORA/large/.git" ] || python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/large.json" "$CORPORA/large" >&2
if [ -z "${GIT_RAG_BIN:-}" ]; then
  cargo build --release --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$bin" "$CORPORA" "$work" "$runs" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
bin_, corpora, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
           GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")

def run(cmd, cwd, extra=None):
    """Wall time, peak RSS (MB) and the JSON report of a command."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, cwd=cwd, env=dict(env, **(extra or {})),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd} failed: {p.stderr}")
    return wall, int(p.stderr.strip().splitlines()[-1]) / 1024, json.loads(p.stdout)

# The slice bench-semantic.sh indexes (scripts/bench_slice.py).
sys.path.insert(0, "scripts")
from bench_slice import make_slice
slice_ = make_slice(corpora, work, env)
prefix = f"git_rag_bench_team_{os.getpid()}_{int(time.time())}"
subprocess.run(["git", "config", "rag.qdrantPrefix", prefix], cwd=slice_, env=env, check=True)

print("== 1. CI indexes the slice into the server", flush=True)
wall, rss, rep = run([bin_, "index", "--ci", "--json", "-q", "--branch", "main"], slice_)
print(f"CI: {rep['files_indexed']} files, embedded {rep['embedded']} texts in {wall:.1f}s (peak RSS {rss:.0f} MB)", flush=True)

def local(label, borrow):
    idx = os.path.join(work, f"idx-{label}")
    shutil.rmtree(idx, ignore_errors=True)
    cfg = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "rag.vectorCache", "GIT_CONFIG_VALUE_0": "server" if borrow else "local"}
    extra = dict(cfg, QDRANT_URL=os.environ["QDRANT_URL"]) if borrow else dict(cfg, QDRANT_URL="")
    wall, rss, rep = run([bin_, "index", "--full", "--json", "-q", "--index-dir", idx], slice_, extra)
    print(f"  {label}: {wall:.1f}s wall, embedded {rep['embedded']}, borrowed {rep.get('borrowed', 0)}, "
          f"search answered after {rep['searchable_ms']/1000:.1f}s, peak RSS {rss:.0f} MB", flush=True)
    return wall, rep

print("== 2. a full local index embedding everything here (reference)", flush=True)
ref, ref_rep = local("embed-here", False)
print(f"== 3. full local indexes borrowing the team's vectors (median of {runs})", flush=True)
walls = [local(f"borrow-{i+1}", True)[0] for i in range(runs)]
med = statistics.median(walls)
print(f"BORROWED: median {med:.1f}s vs embedding here {ref:.1f}s -> {ref/med:.1f}x faster "
      f"({ref_rep['embedded']} texts not embedded)")
PY

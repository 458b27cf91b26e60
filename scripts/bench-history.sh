#!/usr/bin/env bash
# The history store's cost on a real history (`--no-semantic`):
#  1. the first read: the history step's time (the index run reports it),
#     the store's size, commits kept; reference in the same run: `git log
#     --first-parent -p` over the same commits (git reading and diffing them).
#  2. a commit at a time, as the post-commit hook runs it: the index starts
#     N commits behind HEAD and follows the chain one commit per run; the
#     history step's median time and the whole run's; reference: `git log -1 -p`.
#  3. `git rag history` per process: p50 of a few questions.
# Quote medians and ratios: the machine is shared and noisy.
#   scripts/bench-history.sh REPO [DEPTH=20000] [STEPS=10]
# REPO: a clone or a bare mirror (a working clone is made beside it).
# GIT_RAG_BIN uses an existing binary.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$1"; depth="${2:-20000}"; steps="${3:-10}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
if [ -z "${GIT_RAG_BIN:-}" ]; then
  . scripts/toolchain.sh
  cargo build --release --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$bin" "$repo" "$work" "$depth" "$steps" <<'PY'
import json, os, statistics, subprocess, sys, time
bin_, repo, work, depth, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
clone = os.path.join(work, "clone")
subprocess.run(["git", "clone", "-q", "--no-checkout", "--shared", repo, clone], check=True, env=env)
head = subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
chain = subprocess.run(["git", "-C", clone, "rev-list", "--first-parent", f"-n{steps + 1}", head], capture_output=True, text=True, check=True).stdout.split()
for k, v in [("rag.semantic", "false"), ("rag.historyDepth", str(depth))]:
    subprocess.run(["git", "-C", clone, "config", k, v], check=True)

def index(rev):
    t0 = time.perf_counter()
    out = subprocess.run([bin_, "-C", clone, "index", "--rev", rev, "--json", "-q"], capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - t0) * 1000
    if out.returncode != 0:
        sys.exit(f"index failed: {out.stderr}")
    return json.loads(out.stdout), wall

def git_ms(args):
    t0 = time.perf_counter()
    subprocess.run(["git", "-C", clone] + args, stdout=subprocess.DEVNULL, check=True, env=env)
    return (time.perf_counter() - t0) * 1000

start = chain[-1]
r, wall = index(start)
h = r["history"]
ref = git_ms(["log", "--first-parent", "-p", f"-n{h['commits']}", start])
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(clone, ".git", "rag", "history")) for f in fs)
print(f"first read: {h['commits']} commits in {h['took_ms'] / 1000:.1f} s (index run {wall / 1000:.1f} s); "
      f"store {size / 1e6:.1f} MB; git log --first-parent -p: {ref / 1000:.1f} s; ratio {h['took_ms'] / ref:.2f}")
hist, runs, refs = [], [], []
for rev in reversed(chain[:-1]):
    r, wall = index(rev)
    hist.append(r["history"]["took_ms"])
    runs.append(r["took_ms"] + r["history"]["took_ms"])
    refs.append(git_ms(["log", "-1", "-p", rev]))
print(f"one commit at a time ({len(hist)} runs): history step p50 {statistics.median(hist):.0f} ms (max {max(hist):.0f}); "
      f"whole run p50 {statistics.median(runs):.0f} ms; git log -1 -p p50 {statistics.median(refs):.0f} ms")
questions = ["why was this option removed", "fix crash when the config file is missing", "performance of the diff", "documentation typo"]
times = []
for _ in range(3):
    for q in questions:
        t0 = time.perf_counter()
        subprocess.run([bin_, "-C", clone, "history", q, "--json"], stdout=subprocess.DEVNULL, check=True, env=env)
        times.append((time.perf_counter() - t0) * 1000)
ref = statistics.median([git_ms(["log", "--first-parent", "-n10", "-i", "--grep=option"]) for _ in range(5)])
print(f"git rag history per process: p50 {statistics.median(times):.0f} ms over {len(times)} calls; git log --grep -n10 p50 {ref:.0f} ms")
PY

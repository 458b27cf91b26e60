#!/usr/bin/env bash
# What the git hooks add to `git commit`: two temp repositories with the same
# files, one with `git rag hooks install`, one without; N commits in each,
# interleaved (with, without, with, …) so that both see the same machine load,
# including the background index runs the hooks start. Reports the median and
# p90 wall time of `git commit` in each and the median added by the hooks
# (target: under 20 ms), then waits for the background runner and reports how
# many index runs the N commits cost and whether the index reached HEAD.
#   scripts/bench-hooks.sh [N]        (default 30, at least 20)
# Env: GIT_RAG_BIN (the binary to measure; default: a dev build made here).
# Timing: a python3 loop (hyperfine cannot interleave two commands that each
# need a fresh change to commit).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-30}"
[ "$n" -ge 20 ] || { echo "N must be at least 20" >&2; exit 2; }
if [ -z "${GIT_RAG_BIN:-}" ]; then
  . scripts/toolchain.sh
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
  cargo build --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/debug/git-rag}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$work/bin/git-rag"
export PATH="$work/bin:$PATH" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
unset GIT_RAG_DIR QDRANT_URL
for r in with without; do
  git init -q -b main "$work/$r"
  git -C "$work/$r" config rag.semantic false
  cp -r src "$work/$r/src"
  git -C "$work/$r" add -A
  git -C "$work/$r" commit -q -m seed
done
git-rag -C "$work/with" index --quiet >/dev/null
git-rag -C "$work/with" hooks install >/dev/null
echo "git $(git --version | cut -d' ' -f3), git-rag $bin, $n commits each, interleaved"
python3 - "$work" "$n" <<'PY'
import json, os, statistics, subprocess, sys, time
work, n = sys.argv[1], int(sys.argv[2])
def commit(repo, i):
    path = os.path.join(work, repo, "src", "bench_change.py")
    with open(path, "a") as f:
        f.write(f"def change_{i}():\n    return {i}\n")
    subprocess.run(["git", "add", "src/bench_change.py"], cwd=os.path.join(work, repo), check=True)
    t = time.perf_counter()
    subprocess.run(["git", "commit", "-q", "-m", f"change {i}"], cwd=os.path.join(work, repo), check=True)
    return (time.perf_counter() - t) * 1000
times = {"with": [], "without": []}
for i in range(n):
    order = ["with", "without"] if i % 2 == 0 else ["without", "with"]
    for repo in order:
        times[repo].append(commit(repo, i))
def p90(xs):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(0.9 * len(xs)))]
for repo in ("without", "with"):
    xs = times[repo]
    print(f"git commit {repo + ' hooks':<14} median {statistics.median(xs):6.1f} ms   p90 {p90(xs):6.1f} ms   min {min(xs):6.1f} ms")
added = statistics.median(times["with"]) - statistics.median(times["without"])
print(f"added by the hooks (median): {added:.1f} ms  (target < 20 ms: {'ok' if added < 20 else 'OVER'})")
repo = os.path.join(work, "with")
head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
t = time.perf_counter()
while True:
    st = json.loads(subprocess.run(["git-rag", "status", "--json"], cwd=repo, capture_output=True, text=True, check=True).stdout)
    hook = st.get("hook") or {}
    if not st["indexing"] and not hook.get("running") and not hook.get("pending"):
        break
    if time.perf_counter() - t > 120:
        print("the background runner did not finish within 120 s"); break
    time.sleep(0.1)
print(f"background: {hook.get('runs', 0)} index runs for {n} commits; index at HEAD: {st['indexed_commit'] == head}")
PY

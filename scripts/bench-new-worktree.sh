#!/usr/bin/env bash
# A new worktree's first index: started from the main worktree's index (a
# copy, then the difference) against a full rebuild of the same commit in
# the same worktree (the reference), interleaved, keyword/symbol/graph
# layers (vectors are shared by every worktree either way). The repository:
# a clone of REPO (default: this project's own history), the main worktree
# AHEAD commits behind the new one's.
#   scripts/bench-new-worktree.sh [REPO=.] [AHEAD=20]
# Env: GIT_RAG_BIN (existing binary, else a release build), REPEAT (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
src="$(cd "${1:-.}" && pwd)"; ahead="${2:-20}"; repeat="${REPEAT:-5}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/repo"
cd "$work/repo"
head=$(git rev-parse HEAD)
git checkout -q --detach "HEAD~$ahead"
"$bin" index -q --no-semantic >/dev/null
echo "files that differ: $(git diff --name-only HEAD "$head" | wc -l) of $(git ls-files | wc -l)"
python3 - "$bin" "$work" "$head" "$repeat" <<'PY'
import json, statistics, subprocess, sys, time
bin_, work, head, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
repo = f"{work}/repo"
seeded, full = [], []
for i in range(repeat):
    wt = f"{work}/wt{i}"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", wt, head], cwd=repo, check=True)
    t = time.perf_counter()
    r = json.loads(subprocess.run([bin_, "index", "--json", "-q", "--no-semantic"], cwd=wt, check=True, capture_output=True, text=True).stdout)
    seeded.append(time.perf_counter() - t)
    assert r.get("seeded_from") and not r["full"], r
    t = time.perf_counter()
    subprocess.run([bin_, "index", "--json", "-q", "--no-semantic", "--full"], cwd=wt, check=True, capture_output=True)
    full.append(time.perf_counter() - t)
    subprocess.run(["git", "worktree", "remove", "--force", wt], cwd=repo, check=True)
a, b = statistics.median(seeded), statistics.median(full)
print(f"first index of a new worktree, started from the main one's: median {a:.2f} s ({repeat} runs, indexed {r['files_indexed']} files)")
print(f"full rebuild of the same commit there (reference):            median {b:.2f} s")
print(f"ratio: {a / b:.2f}")
PY

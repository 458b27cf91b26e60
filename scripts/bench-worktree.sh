#!/usr/bin/env bash
# What searching the work tree costs a `git rag query` process on `large`
# (a clone of it, keyword layers): the same queries on a clean tree, with
# N edited files (a new function appended to each), and with N edited
# files but `--at-commit`, interleaved in one run; medians of wall time and
# of the layer's own steps (comparing the work tree with the index, then
# analysing what differs), and the peak RSS of a process each way. Then, in
# one `git rag serve --mcp`: edit-to-searchable over 20 saves (a function
# appended to a file, then at once a `search` for it: the time from the
# save to the answer), beside a `search` with nothing edited.
#   scripts/bench-worktree.sh [N=20]
# Env: GIT_RAG_BIN (existing binary, else a release build), REPEAT (rounds, default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
dirty="${1:-20}"
[ -d "$CORPORA/large/.git" ] || python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/large.json" "$CORPORA/large" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --local "$CORPORA/large" "$work/large"
(cd "$work/large" && "$bin" index -q --no-semantic >&2)
python3 - "$bin" "$work/large" "$dirty" "${REPEAT:-3}" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, "scripts")
from bench_queries import GENERIC, Mcp, pct
bin_, repo, dirty, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def run(text, extra=()):
    t = time.perf_counter()
    out = subprocess.run([bin_, "query", text, "--json", "--limit", "10", *extra], cwd=repo, capture_output=True, text=True)
    ms = (time.perf_counter() - t) * 1000
    if out.returncode != 0:
        sys.exit(f"query failed: {out.stderr.strip()[:300]}")
    return ms, json.loads(out.stdout), out.stderr

files = subprocess.run(["git", "ls-files", "*.py"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
picked = [f for f in files if "test" not in f][: dirty]
originals = {f: open(os.path.join(repo, f), encoding="utf-8", errors="replace").read() for f in picked}

def edit(on):
    for i, f in enumerate(picked):
        text = originals[f] + (f"\n\ndef worktree_bench_helper_{i}(value):\n    return value\n" if on else "")
        with open(os.path.join(repo, f), "w", encoding="utf-8") as fh:
            fh.write(text)

samples = {"clean": [], "dirty": [], "dirty --at-commit": []}
steps = {"worktree_status": [], "worktree_analyse": []}
found = 0
for _ in range(repeat):
    for q in GENERIC:
        for case in samples:
            edit(case != "clean")
            ms, answer, _ = run(q, ["--at-commit"] if case.endswith("--at-commit") else [])
            samples[case].append(ms)
            if case == "dirty":
                for s in steps:
                    if s in answer.get("timings", {}):
                        steps[s].append(answer["timings"][s])
edit(True)
_, answer, _ = run("worktree_bench_helper_7")
found = answer["results"] and answer["results"][0]["source"] == "worktree" and answer["results"][0]["path"] == picked[7]
clean = pct(samples["clean"], 50)
print(f"large, {len(files)} Python files tracked, {len(picked)} edited; {len(GENERIC)} queries x {repeat} rounds, interleaved")
for case, xs in samples.items():
    print(f"  {case:<20} wall p50 {pct(xs, 50):7.1f} ms  p95 {pct(xs, 95):7.1f} ms  ({pct(xs, 50) - clean:+.1f} ms, {pct(xs, 50) / clean:.2f}x clean)")
for s, xs in steps.items():
    print(f"  {s:<20} p50 {pct(xs, 50):7.1f} ms  p95 {pct(xs, 95):7.1f} ms")
print(f"  an appended function found first, from the work tree: {bool(found)}")
def rss(extra):
    out = subprocess.run(["/usr/bin/env", "python3", "-c",
        "import resource,subprocess,sys; subprocess.run(sys.argv[1:], capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
        bin_, "query", "where is the request dispatched", "--json", *extra], cwd=repo, capture_output=True, text=True)
    return int(out.stdout.strip() or 0) / 1024
edit(True); dirty_rss = rss([]); at_rss = rss(["--at-commit"])
edit(False); clean_rss = rss([])
print(f"  peak RSS: clean {clean_rss:.0f} MB, dirty {dirty_rss:.0f} MB, dirty --at-commit {at_rss:.0f} MB (the layer of {len(picked)} files: {dirty_rss - at_rss:+.0f} MB)")

edit(False)
server = Mcp(bin_, repo, dict(os.environ))
def search(text):
    t = time.perf_counter()
    r = server.call("tools/call", {"name": "search", "arguments": {"query": text, "limit": 10}})["structuredContent"]
    return (time.perf_counter() - t) * 1000, r
search("warm up the engine")
idle = [search(q)[0] for q in GENERIC]
saves, misses = [], 0
target = os.path.join(repo, picked[0])
for i in range(20):
    t = time.perf_counter()
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(f"\n\ndef live_edit_probe_{i}(value):\n    return value\n")
    _, r = search(f"live_edit_probe_{i}")
    saves.append((time.perf_counter() - t) * 1000)
    top = r["results"][0] if r["results"] else {}
    misses += not (top.get("source") == "worktree" and top.get("symbol") == f"live_edit_probe_{i}")
server.close()
edit(False)
print(f"  serve --mcp, no edit:       search p50 {pct(idle, 50):6.1f} ms  p95 {pct(idle, 95):6.1f} ms")
print(f"  serve --mcp, save→answer:   p50 {pct(saves, 50):6.1f} ms  p95 {pct(saves, 95):6.1f} ms over 20 saves; not found first {misses} times")
PY

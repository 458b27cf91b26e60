#!/usr/bin/env bash
# A monorepo: the Linux kernel (Debian's linux-source package, ~78,600 files,
# 1.5 GB), one commit, keyword + symbol + graph layers (no vectors).
#  1. the repository: `apt-get download $KERNEL_PKG`, the tarball inside it
#     made a one-commit git repository (fixed author, committer and dates: the
#     commit id depends only on the tree), repacked; reused by later runs.
#  2. reference: Universal Ctags over the same tree (C and C++), page cache
#     warm for both: wall, CPU, peak RSS, size of the tags file.
#  3. `git rag index --full --no-semantic`: wall, CPU, peak RSS
#     (/usr/bin/time -v), index size on disk (du -sb), ratio to ctags.
#  4. one-file commits: a function appended to one C file, committed, indexed
#     (median of COMMITS): the work time git-rag reports (took_ms), the process
#     wall time, and the `git commit` itself.
#  5. 20 fixed queries (10 bare names, 10 questions): `git rag query --json`
#     as a process (QUERY_ROUNDS rounds), then through a warm
#     `git rag serve --http` (HTTP_ROUNDS rounds): p50 / p95.
#  6. symbol recall against ctags: RECALL_N C functions that ctags finds
#     defined exactly once (sampled with a fixed seed), looked up in symbol mode
#     through the warm server: is the definition result 1, is it in the top 5.
# Prints one summary block (one line per figure) and writes it as JSON to
# $BENCH_DIR/result.json. Quote medians: the machine is shared and noisy.
#   scripts/bench-monorepo.sh
# Env: GIT_RAG_BIN (existing binary, else a release build),
#      KERNEL_PKG (default linux-source-6.1; `linux-source-6.1=6.1.172-1` pins a version),
#      BENCH_DIR (work folder, default /tmp/bench-monorepo; the full tree needs ~2 GB,
#      its index several times the source: a slice's index was ~5x its source),
#      SLICE (e.g. `kernel,include/linux,lib`: keep only these subtrees, for a quick run;
#      default: the whole tree), COMMITS (3), QUERY_ROUNDS (3), HTTP_ROUNDS (5), RECALL_N (500).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
if [ -z "${GIT_RAG_BIN:-}" ]; then
  . scripts/toolchain.sh
  cargo build --release --locked -q
fi
bin="$(realpath "${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}")"
KERNEL_PKG="${KERNEL_PKG:-linux-source-6.1}"
BENCH_DIR="${BENCH_DIR:-/tmp/bench-monorepo}"
SLICE="$(echo "${SLICE:-}" | sed -E 's#/+(,|$)#\1#g')"   # `include/linux/` is `include/linux`
commits="${COMMITS:-3}"; query_rounds="${QUERY_ROUNDS:-3}"; http_rounds="${HTTP_ROUNDS:-5}"; recall_n="${RECALL_N:-500}"

# The user's git and git-rag settings stay out (a global rag.qdrantUrl, hooks,
# commit signing), and the identity and dates are fixed so that the commit id
# of the tree is the same on every machine.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_AUTHOR_DATE="2024-01-01T00:00:00+0000"
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid GIT_COMMITTER_DATE="2024-01-01T00:00:00+0000"
unset QDRANT_URL GIT_RAG_DIR GIT_RAG_BRANCH GIT_DIR GIT_WORK_TREE

mkdir -p "$BENCH_DIR/deb"
BENCH_DIR="$(cd "$BENCH_DIR" && pwd)"
# One repository (and index) per slice, so a quick run does not throw away the full tree.
tag=full
[ -z "$SLICE" ] || tag="slice-$(echo "$SLICE" | tr ',/' '+_')"
repo="$BENCH_DIR/repo-$tag"; idx="$BENCH_DIR/index-$tag"; tags="$BENCH_DIR/tags-$tag"; stamp="$BENCH_DIR/repo-$tag.built"
work=$(mktemp -d)
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$(now)"; }
# The 20 queries: 10 bare names (functions, inline helpers, macros) and 10
# questions (callers and callees, "how", "where"), for the layers without vectors.
NAMES=(kmalloc schedule_timeout list_add copy_from_user mutex_lock spin_lock_irqsave wake_up_process kfree alloc_pages printk)
QUESTIONS=(
  "what calls schedule_timeout"
  "how are page faults handled"
  "where is the scheduler's run queue defined"
  "what does copy_process call"
  "how is a new process forked"
  "where are pending signals delivered to a task"
  "how does RCU wait for a grace period"
  "where is the timer wheel implemented"
  "how are work queue items executed by worker threads"
  "what calls wake_up_process"
)
printf '%s\n' "${NAMES[@]}" >"$work/names.txt"
printf '%s\n' "${QUESTIONS[@]}" >"$work/questions.txt"
build="{}"   # seconds per build step, for the summary ({} when the repository was reused)

# 1. The package (kept in $BENCH_DIR/deb; a pinned version `pkg=ver` looks for that file).
pkg="${KERNEL_PKG%%=*}"; ver=
[ "$pkg" = "$KERNEL_PKG" ] || ver="${KERNEL_PKG#*=}"
deb=$(ls "$BENCH_DIR/deb/${pkg}_"${ver:-*}_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
t_download=null   # null: the .deb was already there
if [ -z "$deb" ]; then
  t=$(now)
  # apt warns that it downloads unsandboxed as root; that is harmless here.
  (cd "$BENCH_DIR/deb" && apt-get download -q "$KERNEL_PKG" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
  deb=$(ls "$BENCH_DIR/deb/${pkg}_"${ver:-*}_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$deb" ] || { echo "error: apt-get download $KERNEL_PKG gave no .deb in $BENCH_DIR/deb" >&2; exit 1; }
  t_download=$(since "$t")
fi
debname=$(basename "$deb" .deb)

# 2. The tree. The stamp holds what it was built from and its commit: a
# repository whose stamp matches is reused, put back at that commit (the
# one-file commits of an earlier run are dropped).
key="$debname slice=$SLICE gitignore=v1"
base=
if [ -f "$stamp" ] && [ -d "$repo/.git" ] && [ "$(head -n 1 "$stamp")" = "$key" ]; then
  base=$(sed -n 2p "$stamp")
  if git -C "$repo" cat-file -e "$base^{commit}" 2>/dev/null; then
    git -C "$repo" reset -q --hard "$base"
    [ -z "$(git -C "$repo" status --porcelain)" ] || { echo "error: $repo is not clean after reset; remove it" >&2; exit 1; }
    echo "reusing $repo at $base" >&2
  else
    base=
  fi
fi
if [ -z "$base" ]; then
  echo "building $repo from $debname${SLICE:+ (slice: $SLICE)}" >&2
  rm -rf "$repo" "$stamp" "$idx" "$work/deb"
  t=$(now)
  dpkg-deb -x "$deb" "$work/deb"
  tarball=$(ls "$work/deb"/usr/src/*.tar.xz)
  t_extract=$(since "$t")
  t=$(now)
  mkdir -p "$repo"
  top=$(basename "$tarball" .tar.xz)   # the tarball's top folder: linux-source-6.1/
  members=("$top")
  if [ -n "$SLICE" ]; then
    members=("$top/.gitignore")
    IFS=, read -r -a parts <<<"$SLICE"
    for p in "${parts[@]}"; do members+=("$top/${p%/}"); done
  fi
  tar -xJf "$tarball" -C "$repo" --strip-components=1 "${members[@]}"
  rm -rf "$work/deb"
  t_untar=$(since "$t")
  # Debian appends to the kernel's top-level .gitignore a block that ignores
  # everything at the top level except debian/ (its packaging repository
  # tracks only debian/):
  #   # Debian packaging: ignore everything at the top level, since it isn't
  #   # included in our repository
  #   /*
  #   !/debian/
  # Left in, every file of the tree would be ignored: a new file would never
  # show as untracked and the work tree would not look like a kernel
  # checkout's. That block (its comment lines, `/*` and `!/debian/`) is
  # dropped; the kernel's own rules (`.*`, `*.o`, `tags`, ...) stay.
  python3 - "$repo/.gitignore" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")
if "/*" in lines:
    i = lines.index("/*")
    j = i
    while j > 0 and lines[j - 1].startswith("#"):   # the comment block above it
        j -= 1
    k = i + 1
    if k < len(lines) and lines[k] == "!/debian/":
        k += 1
    open(path, "w").write("\n".join(lines[:j] + lines[k:]))
else:
    print(f"note: no `/*` line in {path}: nothing dropped", file=sys.stderr)
PY
  t=$(now)
  git -C "$repo" init -q -b main
  git -C "$repo" config gc.auto 0   # no background gc in the middle of a measurement
  # -f: the tarball is upstream's tracked files (git archive), and the kernel
  # tracks files its own .gitignore rules match (.clang-format, .mailmap, the
  # dot-files; tools/testing/selftests/arm64/tags/, which `tags` matches).
  git -C "$repo" add -A -f
  git -C "$repo" commit -q -m "$debname${SLICE:+ (slice: $SLICE)}"
  t_commit=$(since "$t")
  # A clone has its objects in a pack, not 78,000 loose files.
  t=$(now)
  git -C "$repo" repack -a -d -q
  git -C "$repo" prune-packed
  t_repack=$(since "$t")
  [ -z "$(git -C "$repo" status --porcelain)" ] || { echo "error: $repo: files left out of the commit" >&2; git -C "$repo" status --short | head >&2; exit 1; }
  base=$(git -C "$repo" rev-parse HEAD)
  printf '%s\n%s\n' "$key" "$base" >"$stamp"
  build="{\"download_s\": $t_download, \"extract_deb_s\": $t_extract, \"untar_s\": $t_untar, \"git_add_commit_s\": $t_commit, \"repack_s\": $t_repack}"
  echo "built: $build" >&2
fi

# 3. Page cache warm for both tools: ctags reads the work tree, git-rag the
# object database (the pack).
t=$(now)
# (Symlinks to folders in the tree make `cat` complain; what matters is that
# every file was read.)
(cd "$repo" && { git ls-files -z | xargs -0 cat >/dev/null 2>&1 || true; } && cat .git/objects/pack/*.pack >/dev/null)
echo "page cache warmed in $(since "$t") s" >&2

# 4. ctags, the full index, the one-file commits, the queries as processes.
python3 - "$bin" "$repo" "$idx" "$tags" "$work" "$commits" "$query_rounds" "$root/scripts" <<'PY'
import json, os, re, statistics, subprocess, sys, time
bin_, repo, idx, tags, work, commits, rounds, scripts = sys.argv[1:9]
commits, rounds = int(commits), int(rounds)
sys.path.insert(0, scripts)
from bench_queries import pct
NAMES, QUESTIONS = (open(os.path.join(work, f)).read().splitlines() for f in ("names.txt", "questions.txt"))

def timev(cmd, cwd):
    """Run `cmd` under /usr/bin/time -v: wall s, CPU s, peak RSS MB, stdout."""
    out = os.path.join(work, "time.txt")
    p = subprocess.run(["/usr/bin/time", "-v", "-o", out] + cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    t = open(out).read()
    field = lambda label: re.search(re.escape(label) + r": (.*)", t).group(1).strip()
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return wall, cpu, int(field("Maximum resident set size (kbytes)")) / 1024, p.stdout

r = {"machine_cores": os.cpu_count()}
git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, stdout=subprocess.PIPE, text=True).stdout
r["commit"] = git("rev-parse", "HEAD").strip()
r["files"] = len(git("ls-files", "-z").split("\0")) - 1
r["tree_mb"] = round(sum(int(l.split()[3]) for l in git("ls-tree", "-r", "-l", "HEAD").splitlines() if l.split()[1] == "blob") / 1e6, 1)

# ctags: C and C++, function prototypes too (--kinds-C=+p: git-rag keeps
# declarations in its symbol table as well).
# Universal Ctags maps *.h to C++; the kernel's headers are C, so they are
# mapped to C. Line numbers as addresses (--excmd=number) for the recall check.
# .git is in ctags' default excludes; symbolic links are not followed
# (--links=no), as git-rag skips them. The tags file goes outside the tree.
ctags_cmd = ["ctags", "-R", "--links=no", "--languages=C,C++", "--map-C++=-.h", "--map-C=+.h", "--kinds-C=+p",
             "--excmd=number", "--fields=+n", "-f", tags, "."]
wall, cpu, rss, _ = timev(ctags_cmd, repo)
ntags = sum(1 for l in open(tags, errors="replace") if not l.startswith("!_TAG_"))
r["ctags"] = {"cmd": " ".join(ctags_cmd), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(rss),
              "tags_file_mb": round(os.path.getsize(tags) / 1e6, 1), "tags": ntags}
print(f"ctags: {wall:.1f} s wall, {cpu:.1f} CPU-s, {rss:.0f} MB peak, {ntags} tags", file=sys.stderr, flush=True)

# The full index, from an empty index folder outside the tree.
subprocess.run(["rm", "-rf", idx], check=True)
wall, cpu, rss, out = timev([bin_, "index", "--full", "--no-semantic", "--json", "-q", "--index-dir", idx], repo)
rep = json.loads(out)
du = int(subprocess.run(["du", "-sb", idx], check=True, stdout=subprocess.PIPE, text=True).stdout.split()[0])
r["index"] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(rss), "index_mb": round(du / 1e6, 1),
              "files_indexed": rep.get("files_indexed"), "bytes_indexed_mb": round(rep.get("bytes_indexed", 0) / 1e6, 1),
              "chunks": rep.get("chunks_total"), "symbols": rep.get("symbols_total"), "timings_ms": rep.get("timings"),
              "peak_rss_mb_after_step": rep.get("peak_rss_mb"), "syntax_errors": rep.get("syntax_errors")}
r["ratio_index_to_ctags_wall"] = round(wall / r["ctags"]["wall_s"], 2)
r["ratio_index_to_ctags_cpu"] = round(cpu / r["ctags"]["cpu_s"], 2)
print(f"index: {wall:.1f} s wall, {cpu:.1f} CPU-s, {rss:.0f} MB peak, {du/1e6:.0f} MB on disk", file=sys.stderr, flush=True)

# One-file commits: a small function appended to one big C file (its
# definitions and the graph's edges for it change; nothing else moves).
files = git("ls-files", "*.c").split()
edit = next((f for f in ["kernel/sched/core.c", "mm/memory.c", "lib/string.c"] if f in files), files[0] if files else None)
took, walls, commit_walls, rss_l = [], [], [], []
for i in range(commits):
    with open(os.path.join(repo, edit), "a") as fh:
        fh.write(f"\nint bench_monorepo_added_{i}(int x)\n{{\n\treturn x + {i};\n}}\n")
    t = time.perf_counter()
    git("commit", "-q", "-am", f"bench: one-file commit {i}")
    commit_walls.append((time.perf_counter() - t) * 1000)
    wall, cpu, rss, out = timev([bin_, "index", "--no-semantic", "--json", "-q", "--index-dir", idx], repo)
    rep = json.loads(out)
    if rep.get("files_indexed") != 1:
        sys.exit(f"error: a one-file commit indexed {rep.get('files_indexed')} files: {out[:500]}")
    took.append(rep["took_ms"]); walls.append(wall * 1000); rss_l.append(rss)
med = statistics.median
r["one_file_commit"] = {"file": edit, "rounds": commits, "took_ms": round(med(took), 1), "wall_ms": round(med(walls), 1),
                        "peak_rss_mb": round(med(rss_l)), "git_commit_ms": round(med(commit_walls), 1),
                        "took_ms_all": [round(x, 1) for x in took], "timings_ms_last": rep.get("timings")}

# Queries, one process each (open the index, answer, exit), hybrid mode.
per = {"names": [], "questions": [], "took": []}
answers = {}
for _ in range(rounds):
    for group, qs in (("names", NAMES), ("questions", QUESTIONS)):
        for q in qs:
            t = time.perf_counter()
            p = subprocess.run([bin_, "query", q, "--json", "--index-dir", idx], cwd=repo, capture_output=True, text=True)
            ms = (time.perf_counter() - t) * 1000
            if p.returncode != 0:
                sys.exit(f"error: git rag query {q!r}: {p.stderr[-1000:]}")
            a = json.loads(p.stdout)
            per[group].append(ms); per["took"].append(a.get("took_ms", float("nan")))
            answers[q] = a["results"][0] if a.get("results") else None
both = per["names"] + per["questions"]
r["query_process"] = {"n": len(both), "p50_ms": round(pct(both, 50), 1), "p95_ms": round(pct(both, 95), 1),
                      "names_p50_ms": round(pct(per["names"], 50), 1), "names_p95_ms": round(pct(per["names"], 95), 1),
                      "questions_p50_ms": round(pct(per["questions"], 50), 1), "questions_p95_ms": round(pct(per["questions"], 95), 1),
                      "took_p50_ms": round(pct(per["took"], 50), 1),
                      "empty": [q for q, a in answers.items() if a is None]}
r["top1"] = {q: (f"{a['path']}:{a['start_line']}-{a['end_line']} {a.get('symbol') or ''}".strip() if a else None) for q, a in answers.items()}
json.dump(r, open(os.path.join(work, "part1.json"), "w"))
PY

# 5. The warm server (stopped by the EXIT trap): how long it takes to listen,
# then the queries over HTTP and the symbol recall.
t=$(now)
"$bin" -C "$repo" serve --http 127.0.0.1:0 --index-dir "$idx" >/dev/null 2>"$work/serve.log" &
serve_pid=$!
addr=
for _ in $(seq 1 3000); do
  addr=$(grep -o -m 1 'HTTP API on http://[^ ]*' "$work/serve.log" | sed 's|.*http://||' || true)
  [ -z "$addr" ] || break
  kill -0 "$serve_pid" 2>/dev/null || { echo "error: git rag serve exited:" >&2; cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "error: git rag serve printed no address in 300 s" >&2; exit 1; }
serve_listen_s=$(since "$t")

python3 - "$addr" "$serve_pid" "$work" "$tags" "$http_rounds" "$recall_n" "$BENCH_DIR" "$tag" "$debname" "$SLICE" "$build" "$serve_listen_s" "$root/scripts" <<'PY'
import http.client, json, os, random, sys, time
addr, pid, work, tags, rounds, recall_n, bench_dir, tag, debname, slice_, build, listen_s, scripts = sys.argv[1:14]
rounds, recall_n = int(rounds), int(recall_n)
sys.path.insert(0, scripts)
from bench_queries import pct
NAMES, QUESTIONS = (open(os.path.join(work, f)).read().splitlines() for f in ("names.txt", "questions.txt"))
r = json.load(open(os.path.join(work, "part1.json")))
r = {"package": debname, "slice": slice_ or None, "build_s": json.loads(build) or "reused", **r}
host, port = addr.rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port), timeout=600)

def call(method, path, body=None):
    conn.request(method, path, json.dumps(body) if body is not None else None, {"Content-Type": "application/json"})
    resp = conn.getresponse(); data = resp.read()
    if resp.status != 200:
        sys.exit(f"error: {method} {path} {body}: HTTP {resp.status}: {data[:300]!r}")
    return json.loads(data)

t = time.perf_counter()
while not call("GET", "/v1/codebase/stats")["server"]["warm"]:
    time.sleep(0.05)
r["serve_listen_s"] = float(listen_s)   # process start to the address on stderr
r["serve_warm_after_s"] = round(time.perf_counter() - t, 2)   # then until stats says warm

# The 20 queries, hybrid, over one keep-alive connection.
lat, each = {"names": [], "questions": []}, {}
for _ in range(rounds):
    for group, qs in (("names", NAMES), ("questions", QUESTIONS)):
        for q in qs:
            t = time.perf_counter()
            call("POST", "/v1/codebase/search", {"query": q, "limit": 10})
            ms = (time.perf_counter() - t) * 1000
            lat[group].append(ms); each.setdefault(q, []).append(ms)
allq = lat["names"] + lat["questions"]
r["query_http"] = {"n": len(allq), "p50_ms": round(pct(allq, 50), 1), "p95_ms": round(pct(allq, 95), 1),
                   **{f"{g}_{p}_ms": round(pct(v, int(p[1:])), 1) for g, v in lat.items() for p in ("p50", "p95")},
                   "median_ms_per_query": {q: round(pct(v, 50), 1) for q, v in each.items()}}

# Symbol recall. Ground truth: ctags' function definitions (kind f) whose
# name is defined exactly once in the tree; a fixed-seed sample of them.
defs = {}
for line in open(tags, errors="replace"):
    if line.startswith("!_TAG_"):
        continue
    cols = line.rstrip("\n").split("\t")
    if len(cols) < 4 or cols[3] != "f":
        continue
    defs.setdefault(cols[0], []).append((cols[1].removeprefix("./"), int(cols[2].split(";")[0])))
unique = sorted((n, v[0][0], v[0][1]) for n, v in defs.items() if len(v) == 1)
sample = random.Random(17).sample(unique, min(recall_n, len(unique)))
top1 = top5 = 0
slat, misses = [], []
for name, path, line in sample:
    t = time.perf_counter()
    res = call("POST", "/v1/codebase/search", {"query": name, "mode": "symbol", "limit": 5})["results"]
    slat.append((time.perf_counter() - t) * 1000)
    hit = [x["path"] == path and x["start_line"] <= line <= x["end_line"] for x in res]
    top1 += bool(hit[:1] and hit[0]); top5 += any(hit)
    if not (hit[:1] and hit[0]):
        got = res[0] if res else None
        misses.append(f"{name}\t{path}:{line}\t{'top5' if any(hit) else 'miss'}\t"
                      + (f"{got['path']}:{got['start_line']}-{got['end_line']} {got.get('symbol')} [{got.get('kind')}]" if got else "no result"))
n = len(sample)
r["symbol_recall"] = {"functions_unique": len(unique), "sampled": n, "top1": round(top1 / n, 3) if n else None,
                      "top5": round(top5 / n, 3) if n else None, "query_p50_ms": round(pct(slat, 50), 1), "query_p95_ms": round(pct(slat, 95), 1)}
misses_file = os.path.join(bench_dir, f"recall-misses-{tag}.tsv")
open(misses_file, "w").write("name\tctags definition\twhere\tgit-rag result 1\n" + "".join(m + "\n" for m in misses))
r["symbol_recall"]["misses_file"] = misses_file
try:
    r["serve_peak_rss_mb"] = round(int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM:")).split()[1]) / 1024)
except (OSError, StopIteration):
    r["serve_peak_rss_mb"] = None

c, ix, oc, qp, qh, sr = r["ctags"], r["index"], r["one_file_commit"], r["query_process"], r["query_http"], r["symbol_recall"]
b = r["build_s"]
lines = [
    f"tree: {debname}{' slice ' + slice_ if slice_ else ''}, commit {r['commit'][:12]}, {r['files']} files, {r['tree_mb']} MB; machine: {r['machine_cores']} cores",
    "build: reused" if b == "reused" else "build: " + ", ".join(f"{k.removesuffix('_s')} {'cached' if v is None else f'{v} s'}" for k, v in b.items()),
    f"ctags: wall {c['wall_s']} s, CPU {c['cpu_s']} s, peak RSS {c['peak_rss_mb']} MB, tags file {c['tags_file_mb']} MB ({c['tags']} tags)",
    f"index (full, no vectors): wall {ix['wall_s']} s, CPU {ix['cpu_s']} s, peak RSS {ix['peak_rss_mb']} MB, on disk {ix['index_mb']} MB; "
    f"{ix['files_indexed']} files, {ix['chunks']} chunks, {ix['symbols']} symbols",
    f"index steps (ms): {ix['timings_ms']}",
    f"index peak RSS after each step (MB): {ix['peak_rss_mb_after_step']}",
    f"files with syntax errors: {(ix['syntax_errors'] or {}).get('files', 0)}, "
    f"{100 * (ix['syntax_errors'] or {}).get('analysed_share', 1.0):.1f}% of their lines analysed as code",
    f"ratio index / ctags: wall {r['ratio_index_to_ctags_wall']}x, CPU {r['ratio_index_to_ctags_cpu']}x",
    f"one-file commit ({oc['file']}, median of {oc['rounds']}): work {oc['took_ms']} ms (took_ms), process wall {oc['wall_ms']} ms, "
    f"peak RSS {oc['peak_rss_mb']} MB; the git commit {oc['git_commit_ms']} ms",
    f"query as a process ({qp['n']}): p50 {qp['p50_ms']} ms, p95 {qp['p95_ms']} ms (names p50 {qp['names_p50_ms']}, questions p50 {qp['questions_p50_ms']}; took_ms p50 {qp['took_p50_ms']})"
    + (f"; no result: {qp['empty']}" if qp["empty"] else ""),
    f"query warm HTTP ({qh['n']}): names p50 {qh['names_p50_ms']} ms p95 {qh['names_p95_ms']} ms; questions p50 {qh['questions_p50_ms']} ms p95 {qh['questions_p95_ms']} ms",
    f"server: listening after {r['serve_listen_s']} s, warm {r['serve_warm_after_s']} s later, peak RSS {r['serve_peak_rss_mb']} MB",
    f"symbol recall vs ctags ({sr['sampled']} of {sr['functions_unique']} uniquely defined C functions): top-1 {sr['top1']:.1%}, top-5 {sr['top5']:.1%} "
    f"(symbol query p50 {sr['query_p50_ms']} ms)",
]
print("result 1 per query (hybrid, as a process):")
for q, a in r["top1"].items():
    print(f"  {q!r}: {a}")
print("== bench-monorepo ==")
print("\n".join(lines))
json.dump(r, open(os.path.join(bench_dir, "result.json"), "w"), indent=1)
print(f"result: {os.path.join(bench_dir, 'result.json')}; recall misses: {misses_file}")
PY

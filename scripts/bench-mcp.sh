#!/usr/bin/env bash
# Per-call latency of `search` through the MCP server (`git rag serve --mcp`,
# one warm process) against `git rag query` as a process, in the same run, on
# the dev corpora and optionally `large`: p50 / p95 of the client-side round
# trip of each call, per mode. The server is started once per corpus, warmed by
# waiting until it reports itself warm (status), and every query of the corpus's query set is
# sent REPEAT times; the process side runs each query once per repeat.
#   scripts/bench-mcp.sh [corpus ...]      (default: requests express query-core)
# Env: GIT_RAG_BIN (existing binary), MODES (default "hybrid keyword"),
#      REPEAT (default 3), CORPORA (where the eval corpora live),
#      INDEX_DIR_<corpus> (an index dir other than the corpus's default, e.g.
#      INDEX_DIR_large=/tmp/large-idx).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
corpora=("$@"); [ ${#corpora[@]} -gt 0 ] || corpora=(requests express query-core)
python3 - "$bin" "$EVAL_DIR" "$CORPORA" "${MODES:-hybrid keyword}" "${REPEAT:-3}" "${corpora[@]}" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, "scripts")
from bench_queries import Mcp, pct, queries_for
bin_, eval_dir, root, modes, repeat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), int(sys.argv[5])
corpora = sys.argv[6:]

print(f"{'corpus':<11} {'mode':<8} {'n':>4} | {'mcp p50':>8} {'mcp p95':>8} | {'proc p50':>8} {'proc p95':>8} | {'p50 ratio':>9}")
for c in corpora:
    cwd = os.path.join(root, c)
    env = dict(os.environ)
    env.pop("QDRANT_URL", None)
    if os.environ.get(f"INDEX_DIR_{c}"):
        env["GIT_RAG_DIR"] = os.environ[f"INDEX_DIR_{c}"]
    queries = queries_for(eval_dir, c)
    t = time.perf_counter(); server = Mcp(bin_, cwd, env); start_ms = (time.perf_counter() - t) * 1000
    # The server loads the index, graph and model in the background; wait for it.
    t = time.perf_counter()
    while not server.warm():
        time.sleep(0.02)
    warm_ms = (time.perf_counter() - t) * 1000
    print(f"# {c}: server start + handshake {start_ms:.0f} ms, warm (index, graph, model, store open) after {warm_ms:.0f} ms more", flush=True)
    for mode in modes:
        mcp, proc = [], []
        for _ in range(repeat):
            for q in queries:
                t = time.perf_counter()
                server.call("tools/call", {"name": "search", "arguments": {"query": q, "mode": mode, "limit": 10}})
                mcp.append((time.perf_counter() - t) * 1000)
            for q in queries:
                t = time.perf_counter()
                out = subprocess.run([bin_, "query", q, "--json", "--mode", mode, "--limit", "10"], cwd=cwd, env=env, capture_output=True)
                proc.append((time.perf_counter() - t) * 1000)
                if out.returncode != 0:
                    print(f"  {c} {mode}: {out.stderr.decode()[:200]}", file=sys.stderr)
        print(f"{c:<11} {mode:<8} {len(mcp):>4} | {pct(mcp,50):>8.1f} {pct(mcp,95):>8.1f} | {pct(proc,50):>8.1f} {pct(proc,95):>8.1f} | {pct(proc,50)/pct(mcp,50):>8.1f}x", flush=True)
    server.close()
PY

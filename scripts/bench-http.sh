#!/usr/bin/env bash
# Latency of `POST /v1/codebase/search` on `git rag serve --http` (one warm
# process) against the same call through the MCP stdio server and against
# `git rag query` as a process, all in the same run, on the dev corpora and
# optionally `large`: p50 / p95 of the client-side round trip per mode, and a
# load phase (CLIENTS clients for LOAD_SECONDS seconds on the HTTP server: requests
# served, p50 / p95, errors). The servers are warmed (status says warm) first.
#   scripts/bench-http.sh [corpus ...]      (default: requests express query-core)
# Env: GIT_RAG_BIN (existing binary), MODES (default "hybrid keyword"),
#      REPEAT (default 3), CLIENTS (default 4), LOAD_SECONDS (default 20),
#      CORPORA (where the eval corpora live), INDEX_DIR_<corpus>.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
corpora=("$@"); [ ${#corpora[@]} -gt 0 ] || corpora=(requests express query-core)
python3 - "$bin" "$EVAL_DIR" "$CORPORA" "${MODES:-hybrid keyword}" "${REPEAT:-3}" "${CLIENTS:-4}" "${LOAD_SECONDS:-20}" "${corpora[@]}" <<'PY'
import http.client, json, os, subprocess, sys, threading, time
sys.path.insert(0, "scripts")
from bench_queries import Mcp, pct, queries_for
bin_, eval_dir, root, modes, repeat, clients, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
corpora = sys.argv[8:]
class Http:
    def __init__(self, cwd, env):
        self.p = subprocess.Popen([bin_, "serve", "--http", "127.0.0.1:0"], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        for line in self.p.stderr:
            if "HTTP API on http://" in line:
                self.host, self.port = line.split("HTTP API on http://")[1].split()[0].rsplit(":", 1)
                break
        threading.Thread(target=lambda: [None for _ in self.p.stderr], daemon=True).start()
    def conn(self):
        return http.client.HTTPConnection(self.host, int(self.port), timeout=120)
    def post(self, conn, path, body):
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = conn.getresponse(); data = r.read()
        if r.status != 200:
            raise RuntimeError(f"{path}: HTTP {r.status}: {data[:300]!r}")
        return json.loads(data)
    def get(self, conn, path):
        conn.request("GET", path); r = conn.getresponse(); return json.loads(r.read())
    def close(self):
        self.p.terminate(); self.p.wait(timeout=60)

print(f"{'corpus':<11} {'mode':<8} {'n':>4} | {'http p50':>8} {'http p95':>8} | {'mcp p50':>8} {'mcp p95':>8} | {'proc p50':>8} | {'http/mcp':>8} {'proc/http':>9}")
for c in corpora:
    cwd = os.path.join(root, c)
    env = dict(os.environ); env.pop("QDRANT_URL", None); env.pop("GIT_RAG_HTTP_TOKEN", None)
    if os.environ.get(f"INDEX_DIR_{c}"):
        env["GIT_RAG_DIR"] = os.environ[f"INDEX_DIR_{c}"]
    queries = queries_for(eval_dir, c)
    server, mcp = Http(cwd, env), Mcp(bin_, cwd, env)
    conn = server.conn()
    t = time.perf_counter()
    while not server.get(conn, "/v1/codebase/stats")["server"]["warm"]:
        time.sleep(0.02)
    while not mcp.warm():
        time.sleep(0.02)
    print(f"# {c}: both servers warm after {(time.perf_counter() - t) * 1000:.0f} ms", flush=True)
    for mode in modes:
        h, m, proc = [], [], []
        for _ in range(repeat):
            for q in queries:
                args = {"query": q, "mode": mode, "limit": 10}
                t = time.perf_counter(); server.post(conn, "/v1/codebase/search", args); h.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter(); mcp.call("tools/call", {"name": "search", "arguments": args}); m.append((time.perf_counter() - t) * 1000)
            for q in queries:
                t = time.perf_counter()
                subprocess.run([bin_, "query", q, "--json", "--mode", mode, "--limit", "10"], cwd=cwd, env=env, capture_output=True)
                proc.append((time.perf_counter() - t) * 1000)
        print(f"{c:<11} {mode:<8} {len(h):>4} | {pct(h,50):>8.1f} {pct(h,95):>8.1f} | {pct(m,50):>8.1f} {pct(m,95):>8.1f} | {pct(proc,50):>8.1f} | {pct(h,50)/pct(m,50):>7.2f}x {pct(proc,50)/pct(h,50):>8.1f}x", flush=True)
    # Load: CLIENTS clients, each on its own keep-alive connection, for SECONDS.
    times, errors, deadline = [], [], time.perf_counter() + seconds
    def client(i):
        cn = server.conn(); k = i
        while time.perf_counter() < deadline:
            t = time.perf_counter()
            try:
                server.post(cn, "/v1/codebase/search", {"query": queries[k % len(queries)], "limit": 10})
                times.append((time.perf_counter() - t) * 1000)
            except Exception as e:
                errors.append(str(e)[:200]); cn = server.conn()
            k += 1
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    [t.start() for t in threads]; [t.join() for t in threads]
    print(f"# {c}: load {clients} clients x {seconds:.0f} s (hybrid): {len(times)} answered ({len(times)/seconds:.1f}/s), p50 {pct(times,50):.1f} ms, p95 {pct(times,95):.1f} ms, {len(errors)} errors{': ' + errors[0] if errors else ''}", flush=True)
    server.close(); mcp.close()
PY

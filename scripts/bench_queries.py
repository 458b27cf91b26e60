"""What the latency benchmarks (bench-query, bench-mcp, bench-http) share:
the queries of a corpus, percentiles, and a client of `git rag serve --mcp`."""
import json
import os
import subprocess

# For a corpus without a query set in the eval kit: a fixed mix of forms.
GENERIC = ["where is the request dispatched", "parse_url", "what calls render", "QuerySet", "how are errors logged",
           "cache invalidation", "what does serialize call", "TemplateResponse", "retry with backoff", "who uses validate"]


def queries_for(eval_dir, corpus):
    """The dev kit's queries of `corpus`, else GENERIC."""
    qfile = os.path.join(eval_dir, "queries", f"{corpus}.jsonl")
    if not os.path.exists(qfile):
        return GENERIC
    with open(qfile) as f:
        return [json.loads(line)["query"] for line in f]


def pct(xs, p):
    """The p-th percentile (nearest rank); NaN for no samples."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))] if xs else float("nan")


class Mcp:
    """`git rag serve --mcp` as a child: initialize, then one call at a time."""

    def __init__(self, bin_, cwd, env):
        self.p = subprocess.Popen([bin_, "serve", "--mcp"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def call(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        answer = json.loads(self.p.stdout.readline())
        if "error" in answer or answer.get("result", {}).get("isError"):
            raise RuntimeError(json.dumps(answer)[:300])
        return answer["result"]

    def warm(self):
        return self.call("tools/call", {"name": "status", "arguments": {}})["structuredContent"]["server"]["warm"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)

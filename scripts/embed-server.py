#!/usr/bin/env python3
"""An OpenAI-compatible embeddings server (`POST /v1/embeddings`) serving an
ONNX model directory of git-rag's layout (manifest.json, model.onnx,
tokenizer.json) through Python's onnxruntime: the real model on an
independent runtime build, for the endpoint tests and benchmarks.

    python3 scripts/embed-server.py [--model-dir DIR] [--port 0]
        [--served-name NAME] [--exit-after N] [--throttle-every N] [--dims D]

Prints `listening on http://127.0.0.1:PORT/v1` once ready. Faults, for
tests: --exit-after N ends the process abruptly after answering N requests;
--throttle-every N answers every Nth request 429 with `Retry-After: 0`;
--dims D cuts the vectors to D dimensions (a model of the wrong size).

Needs: pip install onnxruntime==1.31.1 tokenizers==0.23.3 numpy==2.4.6
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def default_model_dir():
    cache = os.environ.get("GIT_RAG_CACHE")
    if not cache:
        xdg = os.environ.get("XDG_CACHE_HOME")
        cache = os.path.join(xdg, "git-rag") if xdg else os.path.expanduser("~/.cache/git-rag")
    # As git-rag picks it: the integer graph where `git rag model install` made one.
    models = os.path.join(cache, "models")
    integer = os.path.join(models, "all-MiniLM-L6-v2-int8")
    if os.path.exists(os.path.join(integer, "manifest.json")):
        return integer
    return os.path.join(models, "all-MiniLM-L6-v2")


class Model:
    def __init__(self, model_dir):
        d = Path(model_dir)
        self.manifest = json.loads((d / "manifest.json").read_text())
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(os.environ.get("EMBED_SERVER_THREADS", "0"))
        if self.manifest.get("optimize") is False:
            # As git-rag loads such a graph: its fusions would change its vectors.
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self.session = ort.InferenceSession(str(d / self.manifest["onnx"]), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(d / self.manifest["tokenizer"]))
        self.tokenizer.enable_truncation(self.manifest["max_tokens"])
        self.tokenizer.no_padding()
        self.lock = threading.Lock()

    def embed(self, texts, batch=16):
        encs = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = [None] * len(encs)
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            width = max(len(encs[i].ids) for i in rows) or 1
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                e = encs[i]
                ids[r, :len(e.ids)] = e.ids
                mask[r, :len(e.ids)] = e.attention_mask
                types[r, :len(e.ids)] = e.type_ids
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = types
            with self.lock:
                tokens = self.session.run(None, feeds)[0]
            if tokens.ndim == 3:
                if self.manifest["pooling"] == "cls":
                    pooled = tokens[:, 0, :]
                else:
                    m = mask[:, :tokens.shape[1], None].astype(np.float32)
                    pooled = (tokens * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
            else:
                pooled = tokens
            if self.manifest.get("normalize", True):
                norms = np.linalg.norm(pooled, axis=1, keepdims=True)
                pooled = pooled / np.where(norms > 0, norms, 1.0)
            for r, i in enumerate(rows):
                out[i] = pooled[r]
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", default=default_model_dir())
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--served-name", default=None, help="the model name clients must send (default: any)")
    ap.add_argument("--exit-after", type=int, default=0)
    ap.add_argument("--throttle-every", type=int, default=0)
    ap.add_argument("--dims", type=int, default=0)
    args = ap.parse_args()
    model = Model(args.model_dir)
    counter = {"requests": 0, "answered": 0}
    count_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, status, body, headers=()):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if not self.path.rstrip("/").endswith("/embeddings"):
                return self.answer(404, {"error": {"message": f"no route {self.path}"}})
            with count_lock:
                counter["requests"] += 1
                n = counter["requests"]
            if args.throttle_every and n % args.throttle_every == 0:
                return self.answer(429, {"error": {"message": "rate limited"}}, [("Retry-After", "0")])
            try:
                req = json.loads(body)
            except ValueError as e:
                return self.answer(400, {"error": {"message": str(e)}})
            if args.served_name and req.get("model") != args.served_name:
                return self.answer(404, {"error": {"message": f"model {req.get('model')!r} not found"}})
            texts = req.get("input")
            if isinstance(texts, str):
                texts = [texts]
            vectors = model.embed(texts)
            data = []
            for i, v in enumerate(vectors):
                v = v[:args.dims] if args.dims else v
                data.append({"object": "embedding", "index": i, "embedding": [float(x) for x in v]})
            self.answer(200, {"object": "list", "data": data, "model": req.get("model"), "usage": {"prompt_tokens": 0, "total_tokens": 0}})
            with count_lock:
                counter["answered"] += 1
                if args.exit_after and counter["answered"] >= args.exit_after:
                    self.wfile.flush()
                    os._exit(0)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

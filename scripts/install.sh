#!/usr/bin/env bash
# Installs git-rag (`git rag ...`) into ~/.cargo/bin with a Rust >= 1.97,
# then ONNX Runtime and the default embedding model into ~/.cache/git-rag.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
cargo install --locked --path .
"${CARGO_HOME:-$HOME/.cargo}/bin/git-rag" model install

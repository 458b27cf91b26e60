#!/usr/bin/env bash
# Installs git-rag (`git rag ...`) into ~/.cargo/bin with a Rust >= 1.97,
# its man pages into ~/.cargo/share/man/man1 (where man finds them for a
# binary in ~/.cargo/bin on the PATH: `git rag --help` opens them), then ONNX
# Runtime and the default embedding model into ~/.cache/git-rag.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
cargo install --locked --path frontend
cargo_root="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}"
"$cargo_root/bin/git-rag" man --dir "$cargo_root/share/man/man1"
"$cargo_root/bin/git-rag" model install

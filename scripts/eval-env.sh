# Sourced by the measuring scripts (score.sh, bench-query.sh): the toolchain,
# the shared target dir, the eval kit, the corpora, and the binary to measure
# (`GIT_RAG_BIN`, or a release build made here). Sets EVAL_DIR, CORPORA, bin.
. scripts/toolchain.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
EVAL_DIR="$(cd "${GIT_RAG_EVAL_DIR:-../shared/eval}" && pwd)"
CORPORA="${CORPORA:-$HOME/.cache/git-rag-eval-corpora}"
if [ -z "${GIT_RAG_BIN:-}" ]; then
  cargo build --release --locked -q
fi
bin="${GIT_RAG_BIN:-$CARGO_TARGET_DIR/release/git-rag}"

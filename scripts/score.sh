#!/usr/bin/env bash
# Retrieval quality on the eval kit's dev corpora: git-rag in the given mode
# (default hybrid) and the grep baseline, in one run.
#   scripts/score.sh [hybrid|keyword|symbol|semantic|graph] [extra score.py args]
# GIT_RAG_BIN uses an existing binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-hybrid}"; shift || true
. scripts/eval-env.sh
for c in requests express query-core; do
  [ -d "$CORPORA/$c/.git" ] || python3 "$EVAL_DIR/corpus.py" build "$EVAL_DIR/specs/$c.json" "$CORPORA/$c" >&2
  "$bin" -C "$CORPORA/$c" index -q >&2
done
echo "== git-rag --mode $mode"
python3 "$EVAL_DIR/score.py" --root "$CORPORA" --corpora requests express query-core \
  --cmd "$bin query {query} --json --limit {limit} --mode $mode" "$@"
echo "== grep baseline"
python3 "$EVAL_DIR/score.py" --root "$CORPORA" --corpora requests express query-core --baseline-grep

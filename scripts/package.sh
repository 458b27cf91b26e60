#!/usr/bin/env bash
# Builds git-rag's packages and prints the path of each, one a line:
# - the Python wheel (frontend/pyproject.toml: maturin's `bin` bindings, the
#   binary as `git-rag` on the PATH, its man pages inside, depending on
#   onnxruntime; the `model` extra adds the model's packages; scripts/ci-index
#   as `git-rag-ci-index`);
# - the npm packages (esbuild's layout): `git-rag` (scripts/npm/git-rag.js,
#   one optional dependency per platform) and `@git-rag/<os>-<cpu>` holding
#   this platform's binary; `npx git-rag …` runs it.
# Usage: scripts/package.sh [OUT_DIR]   (default: $CARGO_TARGET_DIR/packages)
# GIT_RAG_PACKAGE_PROFILE=dev packages the debug build (what the tests install).
# maturin comes from PyPI into a cached virtualenv, pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/toolchain.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/git-rag-target}"
out="${1:-$CARGO_TARGET_DIR/packages}"
profile="${GIT_RAG_PACKAGE_PROFILE:-release}"
case "$profile" in
  dev) built="$CARGO_TARGET_DIR/debug" ;;
  *) built="$CARGO_TARGET_DIR/$profile" ;;
esac

maturin_version=1.15.0
venv="${GIT_RAG_PACKAGE_VENV:-$HOME/.cache/git-rag-package-venv}"
if ! "$venv/bin/maturin" --version 2>/dev/null | grep -q " $maturin_version\$"; then
  echo "installing maturin $maturin_version into $venv (from PyPI)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$maturin_version"
fi

# The man pages, from the binary itself, into the wheel's data folder, and
# scripts/ci-index as `git-rag-ci-index` on the PATH (what CI runs).
cargo build --locked --profile "$profile" -p git-rag-cli >&2
rm -rf frontend/git_rag.data
"$built/git-rag" man --dir frontend/git_rag.data/data/share/man/man1
mkdir -p frontend/git_rag.data/scripts
cp scripts/ci-index frontend/git_rag.data/scripts/git-rag-ci-index

mkdir -p "$out"
rm -f "$out"/git_rag-*.whl
"$venv/bin/maturin" build --locked --profile "$profile" -m frontend/Cargo.toml --out "$out" >&2
ls "$out"/git_rag-*.whl

# npm: the platform's package with the binary, and the package that picks it.
version=$("$built/git-rag" --version | awk '{print $2}')
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) npm_platform=linux-x64 os=linux cpu=x64 ;;
  Linux-aarch64) npm_platform=linux-arm64 os=linux cpu=arm64 ;;
  Darwin-x86_64) npm_platform=darwin-x64 os=darwin cpu=x64 ;;
  Darwin-arm64) npm_platform=darwin-arm64 os=darwin cpu=arm64 ;;
  MINGW*-x86_64 | MSYS*-x86_64) npm_platform=win32-x64 os=win32 cpu=x64 ;;
  *) echo "no npm package for $(uname -s)-$(uname -m)" >&2; exit 0 ;;
esac
npm_dir="$out/npm"
rm -rf "$npm_dir"
mkdir -p "$npm_dir/platform/bin" "$npm_dir/main/bin"
exe=git-rag; [ "$os" = win32 ] && exe=git-rag.exe
cp "$built/$exe" "$npm_dir/platform/bin/$exe"
[ "$profile" = release ] || strip "$npm_dir/platform/bin/$exe" 2>/dev/null || true
cp scripts/npm/git-rag.js "$npm_dir/main/bin/git-rag.js"
cp README.md "$npm_dir/main/"
python3 - "$npm_dir" "$version" "$npm_platform" "$os" "$cpu" <<'PY'
import json, sys
npm_dir, version, platform, os_, cpu = sys.argv[1:]
platforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"]
common = {"version": version, "license": "MIT OR Apache-2.0", "repository": "github:OWNER/git-rag"}
main = {"name": "git-rag", "description": "A retrieval index of a git repository that follows its commits (`git rag`)",
        "bin": {"git-rag": "bin/git-rag.js"}, "files": ["bin/git-rag.js", "README.md"],
        "optionalDependencies": {f"@git-rag/{p}": version for p in platforms}, **common}
plat = {"name": f"@git-rag/{platform}", "description": f"The git-rag binary for {platform}",
        "os": [os_], "cpu": [cpu], "files": ["bin/"], "preferUnplugged": True, **common}
json.dump(main, open(f"{npm_dir}/main/package.json", "w"), indent=2)
json.dump(plat, open(f"{npm_dir}/platform/package.json", "w"), indent=2)
PY
(cd "$npm_dir" && npm pack --silent ./main ./platform >/dev/null)
ls "$npm_dir"/*.tgz

# Sourced by the other scripts: pick a Rust toolchain >= 1.97 (qdrant-edge,
# Qdrant's embedded engine, needs it). The default toolchain if it is new
# enough; else an installed `nightly` that is (this machine image carries
# 1.97.0-nightly). RUSTUP_TOOLCHAIN set by the caller wins.
_rust_minor() { sed -E 's/^rustc 1\.([0-9]+).*/\1/'; }
if [ -z "${RUSTUP_TOOLCHAIN:-}" ]; then
  _default=$(rustc --version 2>/dev/null | _rust_minor)
  if [ -z "$_default" ] || [ "$_default" -lt 97 ]; then
    _nightly=$(rustup run nightly rustc --version 2>/dev/null | _rust_minor)
    if [ -n "$_nightly" ] && [ "$_nightly" -ge 97 ]; then
      export RUSTUP_TOOLCHAIN=nightly
    else
      echo "error: git-rag needs Rust >= 1.97 (found $(rustc --version 2>/dev/null)); install it with rustup" >&2
      exit 1
    fi
  fi
fi
echo "using $(rustc --version)" >&2

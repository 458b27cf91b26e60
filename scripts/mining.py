"""What the question miners share (`mine-doc-questions.py`,
`mine-test-questions.py`, `mine-readme-questions.py`,
`mine-change-notes.py`): loading a sibling script (their names hold
hyphens, so `import` cannot), the options that say which repositories to
mine, and the walk over them.

The walk is resumable: a repository whose `OUT/<owner+name>.jsonl` exists
is skipped, as is one not fetched (`fetch github:OWNER/NAME` puts it at
`MIRRORS/<owner+name>/repo`). A repository that fails is reported on
stderr and the walk goes on.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
# The repositories no benchmark holds, one `owner/name` per line (a tab and a note may follow).
REPOS_FILE = HERE / "ranking-repos.txt"
# What a repository's mining may raise without stopping the others.
REPOSITORY_FAILURES = (RuntimeError, subprocess.CalledProcessError, OSError, json.JSONDecodeError)


def load(name: str, file: str):
    """A sibling script as a module."""
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def repository_options(description: str, per_repo: int) -> argparse.ArgumentParser:
    """A parser with the options every miner takes: OUT, `--mirrors`,
    `--repos-file` or `--repos`, `--per-repo` and `--bin`."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--repos-file", default=str(REPOS_FILE))
    ap.add_argument("--repos", default="", help="owner/name,... instead of the list file")
    ap.add_argument("--per-repo", type=int, default=per_repo)
    ap.add_argument("--bin", default="git-rag")
    return ap


def repositories(args) -> list[str]:
    """`--repos`, or the list file's first column (`#` lines are comments)."""
    if args.repos:
        return args.repos.split(",")
    return [line.split("\t")[0].strip() for line in open(args.repos_file) if line.strip() and not line.startswith("#")]


def output_folder(args) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def each_repository(args, mine: Callable[[Path, str, Path], None]) -> None:
    """`mine(mirror, key, out)` for each repository not mined yet and fetched."""
    out = output_folder(args)
    for repo in repositories(args):
        key = repo.replace("/", "+")
        mirror = Path(args.mirrors) / key / "repo"
        if (out / f"{key}.jsonl").exists() or not mirror.is_dir():
            continue
        try:
            mine(mirror, key, out)
        except REPOSITORY_FAILURES as e:
            print(f"[{key}] failed: {e}", file=sys.stderr)


def work_clone(mirror: Path, out: Path, key: str) -> Path:
    """A clone of the mirror to check out and change (`OUT/repos/<key>`),
    sharing its objects; made once."""
    work = out / "repos" / key
    if not work.is_dir():
        subprocess.run(["git", "clone", "-q", "--shared", str(mirror), str(work)], check=True)
    return work


def index(args, work: Path, out: Path, key: str) -> tuple[dict, float] | None:
    """The work clone indexed with keyword layers into `OUT/idx/<key>`: the
    environment that asks that index and the seconds it took, or `None`
    (reported) when indexing failed."""
    env = dict(os.environ, GIT_RAG_DIR=str(out / "idx" / key))
    started = time.time()
    r = subprocess.run([args.bin, "index", "--no-semantic", "--quiet"], cwd=work, env=env, capture_output=True, text=True)
    if r.returncode:
        print(f"[{key}] index failed: {r.stderr[-300:]}", file=sys.stderr)
        return None
    return env, time.time() - started

#!/usr/bin/env python3
"""Mines questions shaped like users' from repositories no benchmark holds:
the first sentence of a definition's doc comment is the question, the
definition is its answer (CodeSearchNet's pairs), asked of the repository
indexed **with those doc comments stripped** — or BM25 finds each answer
by its own words.

Per repository (a fetched mirror, at its HEAD):
  1. every source file (not tests, vendored, generated: mine-ranking.py's
     rules) is read for definitions with a doc comment: Python docstrings
     (`ast`), `///` and `/** */` blocks (Rust, C#, Swift, Java, Kotlin, Scala,
     JavaScript, TypeScript, PHP, C, C++), `//` blocks over Go declarations,
     `#` blocks over Ruby's, `---` over Lua's, `///` over Zig's and Dart's;
  2. the comment's first sentence, its markup taken out, is kept when it has
     5 to 30 words, says no more than prose (no `@param` lines, no code),
     and does not hold the definition's own name (that is a name lookup,
     another kind); a sentence two definitions share is dropped;
  3. up to `--per-repo` of them (at most 2 per file) are sampled, their
     comments blanked in a scratch commit (line numbers kept), the commit
     indexed (`--no-semantic`), and each question asked as the stage's
     fitting data is (`scripts/fit-ranking.py`'s `query`: `-n 40 --explain`).

Rows are fit-ranking.py's rows (dataset `wide-doc`, one group per
repository, targets scored by semble's rule: the definition's line range),
so `fit-ranking.py fit` reads them beside the dev sets. With `--harness`
they are the offline harness's rows instead (`rank-harness.py`: set `docs`,
pools `shipped` (`--limit 10`) and `wide` (`--limit 200`) with every
result's features, the definition's file as the file label), for
`fit-file-ranking.py`.

    mine-doc-questions.py OUT --mirrors DIR [--repos-file scripts/ranking-repos.txt] [--repos a/b,...] [--per-repo 100] [--bin git-rag] [--harness]

OUT/<owner+name>.jsonl (resumable: a repository with a file is skipped).
"""
from __future__ import annotations

import ast
import json
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

from mining import each_repository, index, load, repository_options, work_clone

mine = load("mine_ranking", "mine-ranking.py")
fitting = load("fit_ranking", "fit-ranking.py")
harness = load("rank_harness", "rank-harness.py")

BLOCK_LANGUAGES = {
    ".rs": "rust", ".cs": "csharp", ".swift": "swift", ".java": "java", ".kt": "kotlin", ".scala": "scala",
    ".js": "javascript", ".mjs": "javascript", ".ts": "typescript", ".tsx": "typescript", ".php": "php",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".go": "go", ".rb": "ruby",
    ".zig": "zig", ".dart": "dart", ".lua": "lua",
}
# A line comment block that documents the declaration under it, by language (`///` everywhere else).
LINE_MARK = {"go": "//", "ruby": "#", "lua": "---"}
KEYWORDS = {"if", "for", "while", "switch", "return", "new", "catch", "sizeof", "typeof", "function", "await", "throw", "else", "do"}
# A declaration line's name: after a declaring keyword, or before the first `(` of a signature.
DECLARED = re.compile(r"\b(?:class|interface|enum|struct|trait|object|record|protocol|extension|module|namespace|type|typealias|impl|mod|fn|func|fun|def|function|macro_rules!)\s+(?:self\.)?([A-Za-z_$][\w$.:]*[?!]?)")
# A field or constant: the name before its type, value or end (`static final int MAX = 3;`, `const x: u8`).
BOUND = re.compile(r"([A-Za-z_$][\w$]*)\s*(?::[^=;]*)?(?:=|;|$)")
CALLED = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\s*\(")
MARKUP = [
    (re.compile(r"\{@\w+\s+([^}]*)\}"), r"\1"),                # {@link Foo#bar}
    (re.compile(r":\w+:`~?([^`]*)`"), r"\1"),                  # :class:`Foo`
    (re.compile(r"\[`?([^\]`]+)`?\]\([^)]*\)"), r"\1"),          # [text](link)
    (re.compile(r"\[`([^\]`]+)`\]"), r"\1"),                   # [`Foo`]
    (re.compile(r"`+([^`]*)`+"), r"\1"),
    (re.compile(r"</?\w+[^>]*>"), ""),                         # <p>, <code>
    (re.compile(r"\*\*|__"), ""),
]
SKIP_START = re.compile(r"(?i)^(todo|fixme|xxx|hack|note|deprecated|copyright|spdx|licensed|generated|see\b|this file|@|#|-|\*|=|\||>|\d)")
SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)")
WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")


def git(repo: Path, *args: str, check: bool = True) -> str:
    p = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError(f"git {' '.join(args[:2])}: {p.stderr[-300:]}")
    return p.stdout


def sentence(lines: list[str], name: str) -> str | None:
    """The doc comment's first sentence, its markup taken out, if it reads as a question could."""
    text = []
    for line in lines:
        line = line.strip()
        if not line:
            if text:
                break
            continue
        if line.startswith(("@", ":param", ":return", "Args:", "Returns:", "Parameters", "Example", ">>>", "```", "#")):
            break
        text.append(line)
    joined = " ".join(text)
    for pattern, repl in MARKUP:
        joined = pattern.sub(repl, joined)
    joined = re.sub(r"\s+", " ", joined).strip()
    m = SENTENCE.match(joined)
    first = (m.group(1) if m else joined).strip()
    words = WORDS.findall(first)
    if not 5 <= len(first.split()) <= 30 or len(words) < 0.7 * len(first.split()):
        return None
    if SKIP_START.match(first) or re.search(r"[{};=]|->|=>|::|\(\)", first):
        return None
    plain = name.rstrip("?!")
    if plain and re.search(rf"(?i)(?<![\w$]){re.escape(plain)}(?![\w$])", first):
        return None
    return first


def python_docs(text: str) -> list[dict]:
    """(question, definition span, lines to blank) of each documented Python def/class."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not node.body:
            continue
        first = node.body[0]
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)):
            continue
        if first.lineno <= node.lineno or first.end_lineno is None:
            continue  # a docstring on the def's own line
        q = sentence(first.value.value.splitlines(), node.name)
        if q:
            out.append({"question": q, "name": node.name, "start": node.lineno, "end": node.end_lineno or node.lineno,
                        "blank": (first.lineno, first.end_lineno), "only": len(node.body) == 1, "indent": first.col_offset})
    return out


def block_docs(text: str, language: str) -> list[dict]:
    """The same for comment blocks right above a declaration line."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        start = i
        body: list[str] = []
        if s.startswith("/**") and not s.startswith("/**/"):
            while i < len(lines):
                t = lines[i].strip()
                t2 = t[3:] if i == start else t
                done = "*/" in t2
                t2 = t2.split("*/")[0]
                body.append(re.sub(r"^\*\s?", "", t2.strip()))
                i += 1
                if done:
                    break
        elif s.startswith("///") or (language in LINE_MARK and s.startswith(LINE_MARK[language])):
            mark = "///" if s.startswith("///") else LINE_MARK[language]
            while i < len(lines) and lines[i].strip().startswith(mark) and not lines[i].strip().startswith(mark + "!"):
                body.append(lines[i].strip()[len(mark):].lstrip("/").strip())
                i += 1
        else:
            i += 1
            continue
        if i == start:
            i += 1  # `//!`, `#!`: not a doc comment
            continue
        j = i
        while j < len(lines) and (not lines[j].strip() or lines[j].strip().startswith(("#[", "@"))):
            j += 1  # attributes and annotations between the comment and the declaration
        if j >= len(lines) or j - i > 4:
            continue
        decl = lines[j]
        m = DECLARED.search(decl)
        called = next((c for c in CALLED.findall(decl) if c not in KEYWORDS), None)
        bound = BOUND.search(decl.split("//")[0].strip())
        name = re.split(r"[.:]", m.group(1))[-1] if m else called or (bound.group(1) if bound else None)
        if not name or decl.strip().startswith(("//", "/*", "*", "#", "return", "import", "use ", "package")):
            continue
        if language == "go" and body and not body[0].startswith(name):
            continue  # Go's doc comments begin with the name; others are notes
        if language == "go":
            body[0] = body[0][len(name):].lstrip()
            body[0] = body[0][:1].upper() + body[0][1:]
        q = sentence(body, name)
        if q:
            out.append({"question": q, "name": name, "start": j + 1, "end": j + 1, "blank": (start + 1, i), "only": False, "indent": 0})
    return out


def strip(text: str, docs: list[dict]) -> str:
    """The file with these doc comments blanked, every line number kept."""
    lines = text.split("\n")
    for d in docs:
        a, b = d["blank"]
        for k in range(a - 1, min(b, len(lines))):
            lines[k] = ""
        if d["only"]:
            lines[a - 1] = " " * d["indent"] + "pass"
    return "\n".join(lines)


def mine_repo(mirror: Path, key: str, out: Path, args) -> None:
    work = work_clone(mirror, out, key)
    git(work, "checkout", "-q", "-f", "HEAD")
    head = git(work, "rev-parse", "HEAD").strip()
    paths = [p for p in git(work, "ls-tree", "-r", "--name-only", "HEAD").splitlines() if not mine.is_excluded(p) and not mine.is_test(p)]
    found: dict[str, list[dict]] = {}
    for p in paths:
        ext = os.path.splitext(p)[1]
        if ext != ".py" and ext not in BLOCK_LANGUAGES:
            continue
        f = work / p
        try:
            if f.stat().st_size > 500_000:
                continue
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        docs = python_docs(text) if ext == ".py" else block_docs(text, BLOCK_LANGUAGES[ext])
        for d in docs:
            d["path"], d["language"] = p, ("python" if ext == ".py" else BLOCK_LANGUAGES[ext])
            found.setdefault(d["question"].lower(), []).append(d)
    unique = [ds[0] for ds in found.values() if len(ds) == 1]
    rng = random.Random(key)
    rng.shuffle(unique)
    per_file: dict[str, int] = {}
    chosen = []
    for d in unique:
        if per_file.get(d["path"], 0) < 2 and len(chosen) < args.per_repo:
            per_file[d["path"]] = per_file.get(d["path"], 0) + 1
            chosen.append(d)
    if len(chosen) < 10:
        print(f"[{key}] {len(chosen)} questions; skipped", file=sys.stderr)
        (out / f"{key}.jsonl").write_text("")
        return
    by_path: dict[str, list[dict]] = {}
    for d in chosen:
        by_path.setdefault(d["path"], []).append(d)
    for p, ds in by_path.items():
        f = work / p
        f.write_text(strip(f.read_text(encoding="utf-8"), ds), encoding="utf-8")
    git(work, "-c", "user.name=miner", "-c", "user.email=miner@localhost", "commit", "-q", "-a", "-m", "doc comments of the questions blanked")
    indexed = index(args, work, out, key)
    if indexed is None:
        return
    env, took = indexed
    tmp = out / f"{key}.jsonl.part"
    with open(tmp, "w") as sink:
        for d in chosen:
            if args.harness:
                sink.write(json.dumps(harness_row(args, work, env, key, d)) + "\n")
                continue
            got = fitting.query(args.bin, work, index, d["question"])
            if not got:
                continue
            row = {"dataset": "wide-doc", "group": key, "unit": key, "language": d["language"], "category": "doc", "query": d["question"],
                   "root": "", "targets": [{"path": d["path"], "start_line": d["start"], "end_line": d["end"]}], "name": d["name"],
                   "repo_head": head, **got}
            sink.write(json.dumps(row) + "\n")
    tmp.rename(out / f"{key}.jsonl")
    git(work, "reset", "-q", "--hard", head)
    print(f"[{key}] {len(chosen)} questions of {len(found)} documented definitions; index {took:.0f}s", file=sys.stderr)


def harness_row(args, work: Path, env: dict, key: str, d: dict) -> dict:
    """One question as the offline harness records it (`rank-harness.py`'s pools)."""
    pools = harness.pools(args.bin, str(work), env, d["question"], harness.SEMBLE_LIMIT)
    return {"id": f"{key}:{d['path']}:{d['start']}", "set": "docs", "repo": key, "language": d["language"], "category": "doc",
            "query": d["question"], "root": "", "targets": [{"path": d["path"], "start_line": d["start"], "end_line": d["end"]}],
            "gold": {d["path"]: []}, "pools": pools}


def main() -> None:
    ap = repository_options(__doc__, per_repo=100)
    ap.add_argument("--harness", action="store_true", help="rows in the offline harness's format (set `docs`)")
    args = ap.parse_args()
    each_repository(args, lambda mirror, key, out: mine_repo(mirror, key, out, args))


if __name__ == "__main__":
    main()

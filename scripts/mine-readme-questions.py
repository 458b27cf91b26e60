#!/usr/bin/env python3
"""Mines topic-shaped questions from repositories no benchmark holds: a
sentence of the project's own documentation (README, docs/) that names one
definition in backticks is the question, that name masked; the file that
defines the name is the answer. The docs the questions came from are
deleted in a scratch commit before indexing, or BM25 finds each sentence
where it was written.

Per repository (a fetched mirror, at its HEAD):
  1. Markdown and reStructuredText files under the root or `docs/`/`doc/`
     (not changelogs) are read as prose: code blocks, headings, tables and
     link targets out, split into sentences of 6 to 40 words;
  2. a sentence is kept when it names exactly one backticked identifier
     (`Session`, `merge_cookies()`, `Client.send`: its last part) that one
     source file (not a test, vendored or generated: mine-ranking.py's
     rules) defines (`class`, `def`, `fn`, `func`, `function`, `struct`,
     `enum`, `trait`, `interface`, `type`, `module`, `object`, `protocol`),
     and the sentence holds no other backticked span naming a file;
  3. the name is replaced by "it" (the question must be answered by what
     the sentence says, not by looking the name up); at most 2 questions
     per answer file and `--per-repo` per repository are sampled;
  4. each is asked as the offline harness asks (`rank-harness.py`: pools
     `shipped`, `--limit 10`, and `wide`, `--limit 200`, with every
     result's features), the defining file as the file label.

    mine-readme-questions.py OUT --mirrors DIR [--repos-file scripts/ranking-repos.txt] [--repos a/b,...] [--per-repo 50] [--bin git-rag]

OUT/<owner+name>.jsonl (set `readme`; resumable: a repository with a file is skipped).
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from mining import each_repository, index, load, repository_options, work_clone

mine = load("mine_ranking", "mine-ranking.py")
harness = load("rank_harness", "rank-harness.py")

DOC_FILE = re.compile(r"(^|/)(readme[^/]*|[^/]+)\.(md|markdown|rst)$", re.I)
DOC_DIRS = ("", "docs/", "doc/", "documentation/")
NOT_DOCS = re.compile(r"(change|history|news|release|contributing|code_of_conduct|security|license|authors)", re.I)
FENCE = re.compile(r"^\s*(```|~~~)")
TICKED = re.compile(r"``?([^`\n]+?)``?")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|#)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_']*")
DEFINES = r"\b(class|def|fn|func|function|struct|enum|trait|interface|type|module|object|protocol|record)\s+(\([^)]*\)\s*)?{name}\b"
SOURCE_EXT = {".py", ".rs", ".go", ".java", ".kt", ".scala", ".swift", ".ts", ".tsx", ".js", ".mjs", ".rb", ".php", ".cs", ".lua", ".dart", ".c", ".h", ".cc", ".cpp", ".hpp", ".zig", ".ex", ".hs", ".ml"}


def git(repo: Path, *args: str, check: bool = True) -> str:
    p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError(p.stderr.strip()[-300:])
    return p.stdout


def prose(text: str) -> list[str]:
    """The sentences of a Markdown or reStructuredText file's prose."""
    out, block, fenced = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        s = line.strip()
        if fenced or not s or s.startswith(("#", "|", "<", ">", "..", ":", "=", "-" * 3, "*" * 3)) or line.startswith(("    ", "\t")):
            if block:
                out.append(" ".join(block))
                block = []
            continue
        block.append(re.sub(r"^([-*+]|\d+\.)\s+", "", s))
    if block:
        out.append(" ".join(block))
    sentences = []
    for para in out:
        para = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", para)  # a link's text, not its target
        para = re.sub(r"(:[a-z:]+:|\{[a-z:]+\})`([^`]*)`", r"`\2`", para)  # rST and MyST roles
        for s in SENTENCE_END.split(para):
            if 6 <= len(WORD.findall(s)) <= 40:
                sentences.append(s.strip())
    return sentences


def name_of(span: str) -> str | None:
    span = span.strip().lstrip("~")
    if not IDENT.match(span):
        return None
    last = re.split(r"\.|::|#", span.removesuffix("()"))[-1]
    return last if len(last) >= 3 else None


def defining_files(work: Path, name: str) -> list[str]:
    out = git(work, "grep", "-l", "-E", DEFINES.format(name=re.escape(name)), "HEAD", "--", ".", check=False)
    files = [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]
    return [f for f in files if os.path.splitext(f)[1] in SOURCE_EXT and not mine.is_excluded(f) and not mine.is_test(f)]


def mine_repo(mirror: Path, key: str, out: Path, args) -> None:
    work = work_clone(mirror, out, key)
    git(work, "checkout", "-q", "-f", "HEAD")
    head = git(work, "rev-parse", "HEAD").strip()
    docs = [p for p in git(work, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
            if DOC_FILE.search(p) and p.startswith(DOC_DIRS) and p.count("/") <= 2 and not NOT_DOCS.search(p.rsplit("/", 1)[-1])
            and (p.count("/") == 0 or p.split("/")[0] + "/" in DOC_DIRS)]
    found, resolved = [], {}
    for p in docs:
        try:
            text = (work / p).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for s in prose(text):
            spans = TICKED.findall(s)
            names = {n for n in (name_of(x) for x in spans) if n}
            if len(names) != 1 or any("/" in x for x in spans):
                continue
            name = names.pop()
            if name not in resolved:
                resolved[name] = defining_files(work, name)
            if len(resolved[name]) != 1:
                continue
            question = TICKED.sub(lambda m: "it" if name_of(m.group(1)) == name else m.group(0), s)
            found.append({"question": question, "name": name, "doc": p, "answer": resolved[name][0]})
    rng = random.Random(key)
    rng.shuffle(found)
    per_file: dict[str, int] = {}
    seen: set[str] = set()
    chosen = []
    for d in found:
        if per_file.get(d["answer"], 0) < 2 and d["question"].lower() not in seen and len(chosen) < args.per_repo:
            per_file[d["answer"]] = per_file.get(d["answer"], 0) + 1
            seen.add(d["question"].lower())
            chosen.append(d)
    if len(chosen) < 5:
        print(f"[{key}] {len(chosen)} questions; skipped", file=sys.stderr)
        (out / f"{key}.jsonl").write_text("")
        return
    # The docs the questions came from leave the index: the question is not found where it was written.
    sources = sorted({d["doc"] for d in chosen})
    git(work, "rm", "-q", "--", *sources)
    git(work, "-c", "user.name=miner", "-c", "user.email=miner@localhost", "commit", "-q", "-m", "the docs of the questions removed")
    indexed = index(args, work, out, key)
    if indexed is None:
        git(work, "reset", "-q", "--hard", head)
        return
    env, took = indexed
    tmp = out / f"{key}.jsonl.part"
    with open(tmp, "w") as sink:
        for d in chosen:
            pools = harness.pools(args.bin, str(work), env, d["question"], harness.SEMBLE_LIMIT)
            sink.write(json.dumps({"id": f"{key}:{d['doc']}:{d['name']}:{len(d['question'])}", "set": "readme", "repo": key, "query": d["question"],
                                   "name": d["name"], "doc": d["doc"], "repo_head": head, "gold": {d["answer"]: []}, "pools": pools}) + "\n")
    tmp.rename(out / f"{key}.jsonl")
    git(work, "reset", "-q", "--hard", head)
    print(f"[{key}] {len(chosen)} questions of {len(found)} ({len(sources)} docs); index {took:.0f}s", file=sys.stderr)


def main() -> None:
    args = repository_options(__doc__, per_repo=50).parse_args()
    each_repository(args, lambda mirror, key, out: mine_repo(mirror, key, out, args))


if __name__ == "__main__":
    main()

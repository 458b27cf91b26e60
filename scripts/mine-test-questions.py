#!/usr/bin/env python3
"""Mines behaviour-shaped questions from repositories no benchmark holds: the
name of a test, as words, is the question ("returns 404 when the route is
missing", `test_redirect_keeps_fragment` → "redirect keeps fragment"); the
source files changed in the commit that added the test are its answer (the
code whose behaviour the test pins). The test files the questions came from
are deleted in a scratch commit before indexing, or BM25 finds each name
where it was written.

Per repository (a fetched mirror, at its HEAD):
  1. the newest `--commits` non-merge commits are read for those that change
     one or two source files (not tests, vendored or generated: mine-ranking.py's
     rules), both still at HEAD under that path, and add lines to a test file;
  2. the added lines of those test files give test names: string-named tests
     (`it("…")`, `test "…"`, `describe`, `context`, `specify`, `should`,
     Scala's `"…" in`, Zig's `test "…"`, bats' `@test "…"`, Catch2's
     `TEST_CASE("…")`, Go's `t.Run("…")`) and identifier-named ones
     (`def test_…`, `func TestFoo…`, Kotlin's backticked names, a method
     under an added `@Test`/`[Fact]`/`[Test]`/`#[test]`, Clojure's `deftest`),
     split into words, a leading "test"/"it"/"should" dropped;
  3. a name is kept with 4 to 20 words, letters mostly, and not asked twice in
     the repository; at most `--per-file` questions per answer file and
     `--per-repo` per repository are sampled;
  4. each is asked as the offline harness asks (`rank-harness.py`: pools
     `shipped`, `--limit 10`, and `wide`, `--limit 200`), the commit's source
     files as the file labels.

    mine-test-questions.py OUT --mirrors DIR [--repos-file scripts/ranking-repos.txt] [--repos a/b,...] [--per-repo 120] [--per-file 2] [--commits 4000] [--bin git-rag]

OUT/<owner+name>.jsonl (set `tests`; resumable: a repository with a file is skipped).
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

SOURCE_EXT = {".py", ".rs", ".go", ".java", ".kt", ".scala", ".swift", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".rb", ".php", ".cs",
              ".lua", ".dart", ".c", ".h", ".cc", ".cpp", ".hpp", ".zig", ".ex", ".exs", ".hs", ".ml", ".clj", ".cljc", ".sh", ".bash"}
# A test named by a string: the string is the question.
STRING_NAMED = [
    re.compile(r"""^\s*(?:it|test|specify|describe|context|scenario|feature|testCase|testProperty|prop|should|@test|t\.Run|s\.Run|suite\.Run|TEST_CASE|SCENARIO|Deno\.test)\s*\(?\s*(["'`])(.{8,200}?)\1"""),
    re.compile(r"""^\s*(?:it|test|describe)\.(?:only|skip|each\([^)]*\))\s*\(\s*(["'`])(.{8,200}?)\1"""),
    re.compile(r"""^\s*(["'])(.{8,200}?)\1\s+(?:in|should|must|can|when|taggedAs)\b"""),  # ScalaTest
    re.compile(r"""^\s*(?:it|they)\s+(?:should|must|can)\s+(["'])(.{8,200}?)\1"""),
    re.compile(r"""^\s*test\s+(["'])(.{8,200}?)\1\s*(?:\{|do\b|,)"""),  # Zig, Elixir, ExUnit
]
# A test named by an identifier: its words are the question.
IDENT_NAMED = [
    re.compile(r"^\s*(?:async\s+)?def\s+(test_?\w+)\s*\("),             # Python, Ruby minitest
    re.compile(r"^\s*func\s+(Test\w+)\s*\(\s*\w+\s+\*testing"),           # Go
    re.compile(r"^\s*(?:override\s+)?func\s+(test\w+)\s*\(\s*\)"),        # Swift XCTest
    re.compile(r"^\s*(?:public\s+)?function\s+(test\w+)\s*\("),          # PHPUnit
    re.compile(r"^\s*fun\s+`([^`]{8,200})`\s*\("),                       # Kotlin
    re.compile(r"^\s*\(deftest\s+([\w\-?!]+)"),                           # Clojure
]
ANNOTATION = re.compile(r"^\s*(@Test\b|@ParameterizedTest\b|\[(Fact|Theory|Test|TestMethod|TestCase)\b|#\[(tokio::)?test\b|@pytest\.mark)")
METHOD_NAME = re.compile(r"^\s*(?:(?:public|private|protected|internal|static|async|override|suspend|final|void|fun|fn|def|Task|func|unsafe)\s+)*(?:[\w<>\[\],.?]+\s+)?(\w+)\s*\(")
LEADING = {"test", "tests", "it", "should", "spec", "check", "verify", "that", "ensure", "ensures"}
WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def git(repo: Path, *args: str, check: bool = True) -> str:
    p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace")
    if check and p.returncode:
        raise RuntimeError(p.stderr.strip()[-300:])
    return p.stdout


def words_of(name: str) -> list[str]:
    """An identifier's words: snake, kebab and camel case split, digits out."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w.lower() for w in re.split(r"[_\-\s?!]+", spaced) if w and not w.isdigit()]


def question_of(raw: str, from_identifier: bool) -> str | None:
    words = words_of(raw) if from_identifier else raw.split()
    while words and words[0].lower().strip("'\"") in LEADING:
        words = words[1:]
    text = " ".join(words)
    letters = WORD.findall(text)
    if not 4 <= len(words) <= 20 or len(letters) < 0.75 * len(words):
        return None
    if re.search(r"[{}();=<>$%]|\\|#\{", text):
        return None  # interpolated or code-like
    return text


def names_added(patch: str) -> list[str]:
    """The questions of the tests a patch adds (its `+` lines, in order)."""
    out, annotated = [], False
    for line in patch.splitlines():
        if not line.startswith("+") or line.startswith("+++"):
            annotated = False  # an annotation names the method added right under it
            continue
        code = line[1:]
        if ANNOTATION.match(code):
            annotated = True
            continue
        q = None
        for pattern in STRING_NAMED:
            m = pattern.match(code)
            if m:
                q = question_of(m.group(2), False)
                break
        else:
            for pattern in IDENT_NAMED:
                m = pattern.match(code)
                if m:
                    q = question_of(m.group(1), not pattern.pattern.startswith(r"^\s*fun\s+`"))
                    break
            else:
                if annotated:
                    m = METHOD_NAME.match(code)
                    if m:
                        q = question_of(m.group(1), True)
        if code.strip() and not code.strip().startswith(("@", "[", "#[")):
            annotated = False
        if q:
            out.append(q)
    return out


def candidates(work: Path, limit: int) -> list[dict]:
    """Commits that change one or two source files still at HEAD and add to a test file."""
    at_head = set(git(work, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    log = git(work, "log", "--no-merges", f"-n{limit}", "--format=@@@%H", "--name-status", "--no-renames", "HEAD")
    out = []
    for block in log.split("@@@")[1:]:
        lines = block.strip().splitlines()
        sha, changes = lines[0], [l.split("\t") for l in lines[1:] if "\t" in l]
        sources = [c[-1] for c in changes if os.path.splitext(c[-1])[1] in SOURCE_EXT and not mine.is_test(c[-1]) and not mine.is_excluded(c[-1])]
        tests = [c[-1] for c in changes if c[0] in ("A", "M") and mine.is_test(c[-1])]
        if 1 <= len(sources) <= 2 and tests and all(s in at_head for s in sources):
            out.append({"sha": sha, "sources": sources, "tests": tests})
    return out


def questions(work: Path, key: str, args) -> tuple[list[dict], int]:
    """The repository's test names asked once, shuffled (a stable order per
    repository), and how many names were found."""
    found: dict[str, list[dict]] = {}
    for c in candidates(work, args.commits):
        patch = git(work, "show", "-U0", "--format=", c["sha"], "--", *c["tests"], check=False)
        for q in dict.fromkeys(names_added(patch)):
            found.setdefault(q.lower(), []).append({"question": q, "answer": c["sources"], "sha": c["sha"][:12], "tests": c["tests"]})
    unique = [ds[0] for ds in found.values() if len(ds) == 1]  # a name added twice is a template, not a question
    random.Random(key).shuffle(unique)
    return unique, len(found)


def mine_repo(mirror: Path, key: str, out: Path, args) -> None:
    work = work_clone(mirror, out, key)
    git(work, "checkout", "-q", "-f", "HEAD")
    head = git(work, "rev-parse", "HEAD").strip()
    at_head = set(git(work, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    unique, found = questions(work, key, args)
    per_file: dict[str, int] = {}
    chosen = []
    for d in unique:
        if all(per_file.get(a, 0) < args.per_file for a in d["answer"]) and len(chosen) < args.per_repo:
            for a in d["answer"]:
                per_file[a] = per_file.get(a, 0) + 1
            chosen.append(d)
    if len(chosen) < 5:
        print(f"[{key}] {len(chosen)} questions; skipped", file=sys.stderr)
        (out / f"{key}.jsonl").write_text("")
        return
    # The test files the names came from leave the index: the question is not found where it was written.
    sources = sorted({t for d in chosen for t in d["tests"] if t in at_head})
    if sources:
        git(work, "rm", "-q", "--", *sources)
        git(work, "-c", "user.name=miner", "-c", "user.email=miner@localhost", "commit", "-q", "-m", "the tests of the questions removed")
    indexed = index(args, work, out, key)
    if indexed is None:
        git(work, "reset", "-q", "--hard", head)
        return
    env, took = indexed
    tmp = out / f"{key}.jsonl.part"
    with open(tmp, "w") as sink:
        for d in chosen:
            pools = harness.pools(args.bin, str(work), env, d["question"], harness.SEMBLE_LIMIT)
            sink.write(json.dumps({"id": f"{key}:{d['sha']}:{len(d['question'])}:{d['question'][:40]}", "set": "tests", "repo": key,
                                   "query": d["question"], "commit": d["sha"], "repo_head": head,
                                   "gold": {a: [] for a in d["answer"]}, "pools": pools}) + "\n")
    tmp.rename(out / f"{key}.jsonl")
    git(work, "reset", "-q", "--hard", head)
    print(f"[{key}] {len(chosen)} questions of {found} test names ({len(sources)} test files removed); index {took:.0f}s", file=sys.stderr)


def main() -> None:
    ap = repository_options(__doc__, per_repo=120)
    ap.add_argument("--per-file", type=int, default=2, help="questions per answer file, at most")
    ap.add_argument("--commits", type=int, default=4000)
    ap.add_argument("--dry-run", action="store_true", help="print each repository's sampled questions and stop (no index)")
    args = ap.parse_args()
    each_repository(args, lambda mirror, key, out: (dry_run if args.dry_run else mine_repo)(mirror, key, out, args))


def dry_run(mirror: Path, key: str, out: Path, args) -> None:
    work = work_clone(mirror, out, key)
    unique, found = questions(work, key, args)
    print(f"[{key}] {found} test names, {len(unique)} asked once")
    for d in unique[:8]:
        print(f"   {d['question']!r} -> {d['answer']}")


if __name__ == "__main__":
    main()

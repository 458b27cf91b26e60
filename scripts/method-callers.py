#!/usr/bin/env python3
"""Callers of a changed method, as `git rag impact` finds them, per binary.

For each repository (a mirror under --mirrors, checked out at its HEAD):
index it once per binary (keyword layers), pick methods at random (a
method definition's first line, found by a per-language pattern, outside
test files), add one line of code that does nothing as the first line of
each one's body (a comment would be no change of code), and ask `git rag
impact` of the work tree. Counts the depth-1 callers (`calls`) each binary lists,
and writes every caller found by one binary and not the other, with its
evidence line, for reading.

    scripts/method-callers.py OUT --mirrors /work/.mirror \\
        --bin before=/path/git-rag-old --bin after=/path/git-rag-new \\
        --repo psf+requests --repo BurntSushi+ripgrep [--per-repo 40]

Resumable: a repository with its results in OUT/<repo>.json is skipped.
Prints a table by language; OUT/summary.json holds it.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

# A method's first line, and a statement that does nothing, valid as the
# first line of its body.
METHODS = {
    "rust": (r"\.rs$", re.compile(r"^\s+(pub(\([^)]*\))?\s+)?(async\s+)?fn\s+\w+[^;]*\(\s*&?(mut\s+)?self\b"), "let _probe = 0;"),
    "python": (r"\.py$", re.compile(r"^\s+(async\s+)?def\s+\w+\(\s*self\b"), "_probe = 0"),
    "go": (r"\.go$", re.compile(r"^func\s+\(\w+\s+\*?\w+(\[[^\]]*\])?\)\s+\w+\("), "_ = 0"),
    "java": (r"\.java$", re.compile(r"^\s+(public|protected|private)\s+(static\s+)?(final\s+)?[\w<>\[\], ?]+\s+\w+\([^;]*$"), "int probe_ = 0;"),
    "csharp": (r"\.cs$", re.compile(r"^\s+(public|protected|private|internal)\s+(static\s+|virtual\s+|override\s+|async\s+)*[\w<>\[\], ?]+\s+\w+\([^;]*$"), "int probe_ = 0;"),
    "typescript": (r"\.ts$", re.compile(r"^\s+(public\s+|private\s+|protected\s+|async\s+|static\s+)*(?!if\b|for\b|while\b|switch\b|return\b|catch\b|function\b)\w+\([^;]*\)\s*(:\s*[^=;{]+)?\{\s*$"), "const probe_ = 0;"),
    "kotlin": (r"\.kt$", re.compile(r"^\s+((override|private|public|internal|protected|open|suspend|final)\s+)*fun\s+(<[^>]*>\s*)?\w+\("), "val probe_ = 0"),
    "php": (r"\.php$", re.compile(r"^\s+(abstract\s+|final\s+)?(public|protected|private)\s+(static\s+)?function\s+\w+\([^;]*$"), "$probe_ = 0;"),
    "cpp": (r"\.(cc|cpp|cxx)$", re.compile(r"^[\w][\w:<>*&, ]*\s[*&]?\w+::~?\w+\([^;]*$"), "int probe_ = 0;"),
    "swift": (r"\.swift$", re.compile(r"^\s+((public|private|internal|fileprivate|open|override|static|final|class|mutating|@objc|@discardableResult)\s+)*func\s+\w+"), "let probe_ = 0"),
    "scala": (r"\.scala$", re.compile(r"^\s+((override|private|protected|final|implicit)(\[\w+\])?\s+)*def\s+\w+"), "val probe_ = 0"),
}
# How many lines after a method's first line its body may open.
BODY_OPENS_WITHIN = 6
TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|spec|testing|test_[^/]*|[^/]*_test\.\w+|[^/]*Tests?\.\w+|[^/]*\.(test|spec)\.\w+)($|/)", re.I)
SKIP_PATH = re.compile(r"(^|/)(vendor|third_party|node_modules|examples?|docs?|benches|fixtures?)/")


def run(cmd, cwd, env=None, timeout=1800):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def language_of(repo_dir: Path):
    """The language of METHODS with the most files in the repository."""
    files = run(["git", "ls-files"], repo_dir).stdout.split("\n")
    counts = {lang: sum(1 for f in files if re.search(ext, f)) for lang, (ext, _, _) in METHODS.items()}
    return max(counts, key=counts.get), files


def methods(repo_dir: Path, language, files, per_repo, seed):
    ext, pattern, _ = METHODS[language]
    found = []
    for f in files:
        if not re.search(ext, f) or TEST_PATH.search(f) or SKIP_PATH.search(f):
            continue
        try:
            lines = (repo_dir / f).read_bytes().decode(errors="replace").split("\n")
        except OSError:
            continue
        for i, line in enumerate(lines):
            if pattern.search(line) and i + 2 < len(lines):
                found.append((f, i + 1, line.strip()))
    random.Random(seed).shuffle(found)
    return found[:per_repo]


def body_start(lines, head, language):
    """The index of the line after the one that opens the method's body
    (ending in `{`, or `:` in Python), within BODY_OPENS_WITHIN lines of its
    first line (0-based `head`); None for a body that is one expression."""
    opener = b":" if language == "python" else b"{"
    for i in range(head, min(head + BODY_OPENS_WITHIN, len(lines))):
        text = lines[i].rstrip()
        if text.endswith(opener):
            return i + 1
        if i > head and METHODS[language][1].search(text.decode(errors="replace")):
            return None  # the next method: this one has no body (a protocol's, an interface's)
        if language != "python" and (text.endswith(b";") or b"=>" in text or re.search(rb"=\s*[^\s={]", text)):
            return None  # declared without a body, or its body is one expression
    return None


def probe(repo_dir: Path, path, line, language):
    """Adds a statement that does nothing as the first line of the method's
    body; returns the original bytes (written back as they were: a CRLF file
    stays CRLF), or None where the body is not found."""
    p = repo_dir / path
    original = p.read_bytes()
    lines = original.split(b"\n")
    at = body_start(lines, line - 1, language)
    if at is None or at >= len(lines):
        return None
    eol = b"\r\n" if lines[0].endswith(b"\r") else b"\n"
    following = next((l for l in lines[at:at + 5] if l.strip()), lines[at])
    indent = re.match(rb"[ \t]*", following).group(0)
    if following.strip().startswith(b"}"):
        indent += b"    "
    lines.insert(at, indent + METHODS[language][2].encode() + eol[:-1])
    p.write_bytes(b"\n".join(lines))
    return original


def callers(repo_dir: Path, binary, index_dir):
    env = dict(os.environ, GIT_RAG_DIR=str(index_dir))
    t = time.time()
    out = run([binary, "impact", "--json"], repo_dir, env, timeout=300)
    took = time.time() - t
    if out.returncode != 0:
        return None, took, out.stderr.strip()[-300:]
    v = json.loads(out.stdout)
    changed = [c.get("symbol") for c in v.get("changed", [])]
    found = [
        {"path": i["path"], "symbol": i.get("symbol"), "evidence": (i.get("evidence") or {}).get("text"), "candidates": i.get("candidates")}
        for i in v.get("impacted", [])
        if i.get("relation") == "calls" and i.get("depth") == 1
    ]
    return {"changed": changed, "callers": found}, took, None


def one_repo(out: Path, mirrors: Path, name, bins, per_repo, seed):
    result_file = out / f"{name}.json"
    if result_file.exists():
        return json.loads(result_file.read_text())
    work = out / "work" / name
    if not work.exists():
        work.parent.mkdir(parents=True, exist_ok=True)
        r = run(["git", "clone", "-q", "--shared", str(mirrors / name / "repo"), str(work)], out)
        if r.returncode != 0:
            print(f"{name}: clone failed: {r.stderr.strip()}", file=sys.stderr)
            return None
    language, files = language_of(work)
    index_times = {}
    for label, binary in bins:
        index_dir = out / "index" / label / name
        env = dict(os.environ, GIT_RAG_DIR=str(index_dir))
        t = time.time()
        r = run([binary, "index", "--no-semantic", "-q"], work, env)
        index_times[label] = round(time.time() - t, 1)
        if r.returncode != 0:
            print(f"{name}: {label} index failed: {r.stderr.strip()[-300:]}", file=sys.stderr)
            return None
    rows = []
    for path, line, head in methods(work, language, files, per_repo * 2, seed):
        if len(rows) == per_repo:
            break
        original = probe(work, path, line, language)
        if original is None:
            continue
        row = {"path": path, "line": line, "head": head}
        try:
            for label, binary in bins:
                got, took, err = callers(work, binary, out / "index" / label / name)
                row[label] = got if got is not None else {"error": err}
                row[f"{label}_ms"] = round(1000 * took)
        finally:
            (work / path).write_bytes(original)
        rows.append(row)
    result = {"repo": name, "language": language, "index_s": index_times, "methods": rows}
    result_file.write_text(json.dumps(result, indent=1))
    return result


def summarize(results, labels):
    by_lang = {}
    for r in results:
        if not r:
            continue
        agg = by_lang.setdefault(r["language"], {"repos": [], "methods": 0, **{l: {"with_callers": 0, "callers": 0, "errors": 0} for l in labels}})
        agg["repos"].append(r["repo"])
        for m in r["methods"]:
            agg["methods"] += 1
            for l in labels:
                got = m.get(l) or {}
                if "error" in got:
                    agg[l]["errors"] += 1
                    continue
                n = len(got.get("callers", []))
                agg[l]["callers"] += n
                agg[l]["with_callers"] += n > 0
    return by_lang


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--bin", action="append", required=True, help="LABEL=PATH, in order")
    ap.add_argument("--repo", action="append", required=True)
    ap.add_argument("--per-repo", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    bins = [tuple(b.split("=", 1)) for b in a.bin]
    labels = [l for l, _ in bins]
    a.out.mkdir(parents=True, exist_ok=True)
    results = []
    for name in a.repo:
        print(f"{name} ...", file=sys.stderr, flush=True)
        results.append(one_repo(a.out, a.mirrors, name, bins, a.per_repo, a.seed))
    by_lang = summarize(results, labels)
    (a.out / "summary.json").write_text(json.dumps(by_lang, indent=1))
    head = ["language", "repos", "methods"] + [f"{l}: with callers / callers" for l in labels]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for lang, agg in sorted(by_lang.items()):
        cells = [lang, str(len(agg["repos"])), str(agg["methods"])]
        cells += [f"{agg[l]['with_callers']} / {agg[l]['callers']}" + (f" ({agg[l]['errors']} errors)" if agg[l]["errors"] else "") for l in labels]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

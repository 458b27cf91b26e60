#!/usr/bin/env python3
"""Mines questions shaped like users' from the change notes of repositories
no benchmark holds: a line a fix added to the changelog (a CHANGELOG entry,
a towncrier or changeset fragment) is written for users — what broke or
what now works, in their words — and the source files the same commit
changed are its answer. Each question is then asked of the repository
twice, as the ranking would see it:

  - `query <note> --json -n 50`: the files the index ranks, in order;
  - `history <note> --json -n 50 --until @<parent's date>`: the commits
    before the fix that answer it (never the fix or anything after it),
    with the files each changed — the history evidence a ranker may weigh.

The repository is indexed once at its HEAD (keyword layers). Its code is
HEAD's, so the fix is in it: the code side is favoured a little over the
history side, never the other way (see docs/experiments.md).

Per repository: the first-parent chain's newest `--depth` commits; a commit
is kept when it adds 1 to 4 entries to change notes and changes 1 to 8
source files that are not tests, examples or docs, some of which exist at
HEAD (those are the targets). The note's markup, issue and pull-request
references, credits and links are taken out; 5 to 80 words remain. A note
two commits share is dropped. At most `--per-repo` newest are asked.

    mine-change-notes.py OUT --mirrors DIR [--repos-file scripts/ranking-repos.txt] [--repos a/b,...]
                         [--per-repo 150] [--depth 6000] [--bin git-rag]

OUT/<owner+name>.jsonl (resumable: a repository with a file is skipped).

`--pools` asks the mined notes again as `rank-harness.py record` asks an
issue (`--limit 50` and `--limit 200`, every result's features), keeping
the history's answer mined before: OUT/pools/<owner+name>.jsonl in the
harness's row format (set `notes`), for `fit-file-ranking.py`.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from mining import each_repository, index, load, output_folder, repositories, repository_options, work_clone

mine = load("mine_ranking", "mine-ranking.py")

NOTES_FILE = re.compile(r"(?i)(^|/)(change[-_ ]?log|changes|history|news|release[-_ ]?notes)(\.[a-z]+)?$")
NOTES_DIR = re.compile(r"(?i)(^|/)(changelog\.d|changes|newsfragments|news|\.changeset|changelog|unreleased|changelogs)/([^/]+/)?[^/]+$")
NOT_NOTE = re.compile(r"(?i)(^|/)(readme|template|\.gitignore|config\.json)[^/]*$")
HEADER = re.compile(r"^\s*(#{1,6}\s|={3,}|-{3,}|~{3,}|\^{3,}|\*{3,}|\[?v?\d+\.\d+(\.\d+)?\b|(unreleased|upcoming|main|master)\b\s*:?\s*$)", re.I)
BULLET = re.compile(r"^\s*([-*+•]|\d+[.)])\s+")
RST_ROLE = re.compile(r":(pr|issue|user|bug|ghuser|gh|commit|meth|func|class|attr|mod|obj|data|exc|ref|doc|option|envvar|py:\w+):`([^`]*)`")
CREDIT = re.compile(r"(?i)\s*(\(|\b)(thanks|by|reported by|contributed by|patch by|via)\s+@[\w-]+.*$|\s*@[\w-]+\s*$")
YAML_KEY = re.compile(r"^\s*(message|description|summary)\s*:\s*[>|]?-?\s*", re.I)
THANKS = re.compile(r"(?i)\s*\b(thanks|thank you)\b[^.]*(\.|$)")
CODE_LIKE = re.compile(r"^\s*(import|from|export|class|def|fn|func|public|private|const|let|var)\s|[{};]\s*$|=>")
VERSION_HEADER = re.compile(r"^\s*(#{1,6}\s*)?\[?v?\d+\.\d+(\.\d+)?|^\s*\*?\(?\d{4}-\d{2}-\d{2}\)?\*?\s*$")
CHANGESET_HEAD = re.compile(r"^---\n.*?\n---\n", re.S)
LABEL = re.compile(r"^\s*\*{0,2}(bug\s*fix(es)?|fix(ed|es)?|bugs?|fixed|changed|added|improvements?|enhancements?|features?|security|breaking)\*{0,2}\s*:\s*", re.I)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True, errors="replace").stdout


def is_note(path: str) -> bool:
    return (NOTES_FILE.search(path) is not None or NOTES_DIR.search(path) is not None) and not NOT_NOTE.search(path)


def clean(line: str) -> str:
    line = BULLET.sub("", line)
    line = YAML_KEY.sub("", line)
    line = RST_ROLE.sub(lambda m: m.group(2) if m.group(1) not in ("pr", "issue", "user", "bug", "ghuser", "gh", "commit") else "", line)
    line = mine.MD_LINK.sub(r"\1", line)
    line = mine.URL.sub("", line)
    line = mine.ISSUE_REF.sub("", line)
    line = CREDIT.sub("", line)
    line = LABEL.sub("", line)
    line = THANKS.sub("", line)
    line = line.replace("**", "").replace("``", "`")
    return re.sub(r"\s+", " ", re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", "", line)).strip(" -:;,")


def entries(added: list[str]) -> list[str]:
    """The entries of a note's added lines: a bullet starts one, its
    indented continuation lines join it; headers and version lines end one."""
    out: list[str] = []
    current: list[str] = []
    for raw in added:
        if not raw.strip() or HEADER.match(raw):
            if current:
                out.append(" ".join(current))
                current = []
            continue
        if BULLET.match(raw) and current:
            out.append(" ".join(current))
            current = []
        current.append(raw.strip())
    if current:
        out.append(" ".join(current))
    return [e for e in (clean(x) for x in out) if len(e.split()) > 3 and not CODE_LIKE.search(e)]


def is_release(diff: str) -> bool:
    """A release gathers notes: it adds a version or date header, or removes fragments."""
    return any(l.startswith("+") and not l.startswith("+++") and (VERSION_HEADER.match(l[1:])) for l in diff.splitlines())


def commits(work: Path, depth: int):
    """(id, parent, parent's time, changed paths with status) for the first-parent chain, newest first."""
    log = git(work, "log", "--first-parent", "--diff-merges=first-parent", f"-n{depth}", "--name-status", "-M",
              "--format=%x00%H %P%x01%ct")
    chunks = log.split("\x00")[1:]
    parent_time: dict[str, int] = {}
    rows = []
    for c in chunks:
        head, _, body = c.partition("\n")
        ids, _, ct = head.partition("\x01")
        parts = ids.split()
        if len(parts) < 2:
            continue
        paths = []
        for l in body.splitlines():
            f = l.split("\t")
            if len(f) >= 2:
                paths.append((f[0][0], f[-1]))
        rows.append((parts[0], parts[1], paths))
        parent_time[parts[0]] = int(ct)
    return [(c, p, parent_time.get(p), paths) for c, p, paths in rows]


def note_text(work: Path, commit: str, parent: str, notes: list[str]) -> list[str]:
    diff = git(work, "diff", "-U0", "--no-color", parent, commit, "--", *notes)
    if is_release(diff):
        return []
    added, found = [], []
    for l in diff.splitlines():
        if l.startswith("+++ "):
            if added:
                found += entries(added)
            added = []
        elif l.startswith("+"):
            added.append(l[1:])
    if added:
        found += entries(added)
    return found


def ask(binary: str, work: Path, env: dict, args: list[str]) -> dict | None:
    r = subprocess.run([binary, *args], cwd=work, env=env, capture_output=True, text=True)
    if r.returncode:
        print(f"  {args[0]} failed: {r.stderr[-200:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout)


def mine_repo(mirror: Path, key: str, out: Path, args) -> None:
    work = work_clone(mirror, out, key)
    git(work, "checkout", "-q", "-f", "HEAD")
    head = git(work, "rev-parse", "HEAD").strip()
    at_head = set(git(work, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    chosen, seen = [], {}
    for commit, parent, ptime, paths in commits(work, args.depth):
        if ptime is None:
            continue
        notes = [p for s, p in paths if s in "AM" and is_note(p)]
        if any(s == "D" and is_note(p) for s, p in paths):
            continue
        sources = [p for s, p in paths if not is_note(p) and mine.extension(p) in mine.CODE and not mine.is_test(p) and not mine.is_excluded(p)]
        if not notes or not 1 <= len(sources) <= 8:
            continue
        targets = [p for p in sources if p in at_head]
        if not targets:
            continue
        found = note_text(work, commit, parent, notes)
        if not 1 <= len(found) <= 4:
            continue
        question = " ".join(found)
        if not 5 <= len(question.split()) <= 80:
            continue
        k = question.lower()
        seen[k] = seen.get(k, 0) + 1
        chosen.append({"commit": commit, "parent": parent, "parent_time": ptime, "question": question, "targets": targets, "sources": sources})
    chosen = [c for c in chosen if seen[c["question"].lower()] == 1][: args.per_repo]
    if len(chosen) < 10:
        print(f"[{key}] {len(chosen)} notes; skipped", file=sys.stderr)
        (out / f"{key}.jsonl").write_text("")
        return
    indexed = index(args, work, out, key)
    if indexed is None:
        return
    env, took = indexed
    asked = time.time()
    tmp = out / f"{key}.jsonl.part"
    with open(tmp, "w") as sink:
        for c in chosen:
            got = ask(args.bin, work, env, ["query", c["question"], "--json", "-n", "50"])
            hist = ask(args.bin, work, env, ["history", c["question"], "--json", "-n", "50", "--until", f"@{c['parent_time']}"])
            if got is None or hist is None:
                continue
            files = []
            for res in got.get("results", []):
                if res["path"] not in files:
                    files.append(res["path"])
            row = {"repo": key, "head": head, **c, "intent": (got.get("analysis") or {}).get("intent"), "files": files,
                   "history": [{"id": h["id"], "score": h["score"], "time": h["time"], "files": h["files"], "files_changed": h["files_changed"]}
                               for h in hist.get("commits", []) if h["id"] != c["commit"]]}
            sink.write(json.dumps(row) + "\n")
    tmp.rename(out / f"{key}.jsonl")
    print(f"[{key}] {len(chosen)} notes; index {took:.0f}s, asked in {time.time() - asked:.0f}s", file=sys.stderr)


def pools(out: Path, key: str, args) -> None:
    harness = load("rank_harness", "rank-harness.py")
    target = out / "pools" / f"{key}.jsonl"
    rows = [json.loads(l) for l in open(out / f"{key}.jsonl")][: args.pools_per_repo]
    if target.exists() or not rows:
        return
    target.parent.mkdir(exist_ok=True)
    work, env = out / "repos" / key, dict(os.environ, GIT_RAG_DIR=str(out / "idx" / key))
    tmp = target.with_suffix(".part")
    with open(tmp, "w") as sink:
        for r in rows:
            got = harness.pools(args.bin, str(work), env, r["question"])
            sink.write(json.dumps({"id": r["commit"], "set": "notes", "repo": key, "gold": {p: [] for p in r["targets"]}, "query": r["question"],
                                   "pools": got, "history": r["history"]}) + "\n")
    tmp.rename(target)
    print(f"[{key}] {len(rows)} notes asked with features", file=sys.stderr)


def main() -> None:
    ap = repository_options(__doc__, per_repo=150)
    ap.add_argument("--depth", type=int, default=6000)
    ap.add_argument("--dry", action="store_true", help="print the notes found, ask nothing")
    ap.add_argument("--pools", action="store_true", help="ask the mined notes again with every result's features")
    ap.add_argument("--pools-per-repo", type=int, default=60)
    args = ap.parse_args()
    if args.pools:
        out = output_folder(args)
        for key in (repo.replace("/", "+") for repo in repositories(args)):
            if (out / f"{key}.jsonl").exists():
                pools(out, key, args)
        return
    each_repository(args, lambda mirror, key, out: (dry_run if args.dry else mine_repo)(mirror, key, out, args))


def dry_run(mirror: Path, key: str, out: Path, args) -> None:
    """The notes a repository's history holds, printed; nothing asked."""
    work = work_clone(mirror, out, key)
    n = 0
    for commit, parent, ptime, paths in commits(work, args.depth):
        notes = [p for s, p in paths if s in "AM" and is_note(p)]
        sources = [p for s, p in paths if not is_note(p) and mine.extension(p) in mine.CODE and not mine.is_test(p) and not mine.is_excluded(p)]
        if notes and 1 <= len(sources) <= 8:
            found = note_text(work, commit, parent, notes)
            if 1 <= len(found) <= 4:
                n += 1
                if n <= 6:
                    print(f"[{key}] {commit[:8]} {sources[:3]} :: {' | '.join(found)[:200]}")
    print(f"[{key}] {n} candidate notes")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Score `git rag history` on the history kit (questions.jsonl), beside two `git log --grep` baselines.

Per repository: a throwaway non-bare clone of the fetched mirror at the recorded HEAD
(git clone --no-checkout --shared, then git checkout -q HEAD), one `<bin> -C <clone> index`,
then `<bin> -C <clone> history "<question>" --json -n 10` per question. Hits: any gold id
among the first 10 commits (answer["commits"][i]["id"], best first). Metrics: MRR@10,
Acc@1/@5/@10, overall / per repository / per kind, and the p50 wall time of the history calls.

Baselines (no index, run on the mirror at the recorded HEAD): the question's content words
(3+ characters, minus a small stopword list) as `git log --first-parent -i -E --grep=w ...`,
newest first, first 10: `grep-any` (any word matches) and `grep-all` (--all-match).

Python 3.11, standard library only. Examples:
  python3 score.py --baseline-only
  python3 score.py --bin target/release/git-rag --out /tmp/history-kit.json
  python3 score.py --check                 # verify gold ids against the mirrors, then exit
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Recorded HEAD (default branch) of each repository's snapshot; questions were written against these.
HEADS = {
    "psf/black": "8947c48ef2077c3a301b03c1e814dc2e3f78436e",
    "junegunn/fzf": "956562daaa82ddf55ea8f7aeab56883377b742c6",
    "sharkdp/fd": "ee20f426ddf338ac7ead5c5f00ea49258005caaf",
    "eslint/eslint": "c27bc926e496985eb7911c09eb60914b2e4b5d0f",
}

# No model needed: keyword layers only.
RAG_ENV = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "rag.semantic", "GIT_CONFIG_VALUE_0": "false"}

STOPWORDS = set("""
the and for are was were with when why what which who how does did done doing has have had not now
still that this those these than then there their them they its into from onto over under about after
before since until while also just only even ever instead again more most much many some any all one two
can could would should will shall may might must get got make made use used using like way out off
say says said you your yours our ours she her his him its it's i'm i've don't doesn't didn't isn't wasn't
change changed changes commit commits where new old doesn didn isn wasn don aren won
""".split())

K = 10


def git(*args: str, cwd: str | None = None, git_dir: str | None = None, check: bool = True) -> str:
    cmd = ["git"] + ([f"--git-dir={git_dir}"] if git_dir else []) + list(args)
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


def mirror_dir(mirrors: Path, repo: str) -> Path:
    return mirrors / repo.replace("/", "+") / "repo"


def content_words(question: str) -> list[str]:
    seen: list[str] = []
    for w in re.findall(r"[A-Za-z0-9_]+", question):
        w = w.lower()
        if len(w) >= 3 and sum(c.isalpha() for c in w) >= 1 and w not in STOPWORDS and w not in seen:
            seen.append(w)
    return seen


def grep_baseline(git_dir: str, head: str, words: list[str], all_match: bool) -> list[str]:
    if not words:
        return []
    args = ["log", "--first-parent", f"-n{K}", "--format=%H", "-i", "-E"]
    if all_match:
        args.append("--all-match")
    args += [f"--grep={w}" for w in words] + [head]
    return git(*args, git_dir=git_dir).split()


def rank_of(ids: list[str], targets: list[str]) -> int | None:
    for i, c in enumerate(ids[:K]):
        c = c.lower()
        if len(c) >= 7 and any(t.startswith(c) for t in targets):
            return i + 1
    return None


def prepare_clone(mirror: Path, work: Path, repo: str, head: str, fresh: bool) -> Path:
    dest = work / repo.replace("/", "+")
    if dest.exists() and not fresh:
        cur = git("rev-parse", "HEAD", cwd=str(dest), check=False).strip()
        if cur == head and not git("status", "--porcelain", "--untracked-files=no", cwd=str(dest), check=False).strip():
            return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", "--no-checkout", "--shared", str(mirror), str(dest))
    git("checkout", "-q", head, cwd=str(dest))
    return dest


def run_tool(cmd: list[str], env: dict, timeout: float) -> tuple[object | None, str | None, float]:
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except FileNotFoundError as e:
        return None, f"not found: {e}", time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f}s", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        return None, f"exit {r.returncode}: {' | '.join(tail)}", dt
    return r.stdout, None, dt


def parse_history(stdout: str) -> list[str]:
    answer = json.loads(stdout)
    return [str(c["id"]) for c in answer["commits"]]


def metrics(ranks: list[int | None]) -> dict:
    n = len(ranks)
    if n == 0:
        return {"n": 0, "mrr": 0.0, "acc1": 0.0, "acc5": 0.0, "acc10": 0.0}
    return {
        "n": n,
        "mrr": sum(1.0 / r for r in ranks if r) / n,
        "acc1": sum(1 for r in ranks if r and r <= 1) / n,
        "acc5": sum(1 for r in ranks if r and r <= 5) / n,
        "acc10": sum(1 for r in ranks if r and r <= 10) / n,
    }


def check_kit(questions: list[dict], mirrors: Path) -> int:
    bad = 0
    fp_cache: dict[str, set[str]] = {}
    for q in questions:
        repo = q["repo"]
        gd = str(mirror_dir(mirrors, repo))
        if repo not in fp_cache:
            fp_cache[repo] = set(git("rev-list", "--first-parent", "-n20000", HEADS[repo], git_dir=gd).split())
        for h in q["gold"]:
            if git("cat-file", "-t", h, git_dir=gd, check=False).strip() != "commit":
                print(f"MISSING {repo} {h}: {q['question']}"); bad += 1
            elif h not in fp_cache[repo]:
                print(f"NOT FIRST-PARENT {repo} {h}: {q['question']}"); bad += 1
        for h in q.get("also", []):
            if git("cat-file", "-t", h, git_dir=gd, check=False).strip() != "commit":
                print(f"MISSING also {repo} {h}"); bad += 1
    print(f"checked {len(questions)} questions: {'all gold ids ok' if not bad else f'{bad} problems'}")
    return 1 if bad else 0


def fmt_row(name: str, m: dict, extra: str = "") -> str:
    return f"| {name} | {m['n']} | {m['mrr']:.3f} | {m['acc1']:.3f} | {m['acc5']:.3f} | {m['acc10']:.3f} |{extra}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kit", default=str(HERE / "questions.jsonl"))
    ap.add_argument("--mirrors", default=os.environ.get("HISTORY_KIT_MIRRORS", "/work/.mirror"))
    ap.add_argument("--work", default="/tmp/history-kit", help="where the throwaway clones go")
    ap.add_argument("--bin", default="git-rag", help="git-rag binary")
    ap.add_argument("--out", default=None, help="per-question results (JSON)")
    ap.add_argument("--repos", default=None, help="comma-separated OWNER/NAME subset")
    ap.add_argument("--baseline-only", action="store_true", help="score only the git log baselines (no clone, no index)")
    ap.add_argument("--check", action="store_true", help="verify gold ids exist and lie on the first-parent chain, then exit")
    ap.add_argument("--fresh", action="store_true", help="re-clone even when a clone at the recorded HEAD exists")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per history call")
    ap.add_argument("--index-timeout", type=float, default=3600.0)
    args = ap.parse_args()

    questions = [json.loads(l) for l in open(args.kit) if l.strip()]
    if args.repos:
        keep = set(args.repos.split(","))
        questions = [q for q in questions if q["repo"] in keep]
    mirrors = Path(args.mirrors)
    if args.check:
        return check_kit(questions, mirrors)

    systems = ["grep-any", "grep-all"] if args.baseline_only else ["git-rag", "grep-any", "grep-all"]
    env = dict(os.environ, **RAG_ENV)
    work = Path(args.work)
    results: list[dict] = []
    tool_times: list[float] = []
    index_secs: dict[str, float] = {}
    repos = list(dict.fromkeys(q["repo"] for q in questions))

    for repo in repos:
        head = HEADS[repo]
        mirror = mirror_dir(mirrors, repo)
        if not mirror.exists():
            print(f"[{repo}] no mirror at {mirror} (fetch github:{repo}); its questions count as misses", file=sys.stderr)
        clone = None
        repo_error = None
        if "git-rag" in systems and mirror.exists():
            try:
                clone = prepare_clone(mirror, work, repo, head, args.fresh)
                t0 = time.perf_counter()
                _, err, _ = run_tool([args.bin, "-C", str(clone), "index"], env, args.index_timeout)
                index_secs[repo] = time.perf_counter() - t0
                if err:
                    repo_error = f"index failed: {err}"
            except Exception as e:  # clone failure: every tool call is a miss
                repo_error = f"clone failed: {e}"
            if repo_error:
                print(f"[{repo}] {repo_error}", file=sys.stderr)
        printed_error = False
        for q in (q for q in questions if q["repo"] == repo):
            gold = [g.lower() for g in q["gold"]]
            also = [a.lower() for a in q.get("also", [])]
            words = content_words(q["question"])
            row = {"repo": repo, "kind": q["kind"], "question": q["question"], "gold": gold, "words": words, "systems": {}}
            for sysname in systems:
                ids: list[str] = []
                err = None
                dt = None
                if not mirror.exists():
                    err = "no mirror"
                elif sysname == "git-rag":
                    if clone is None:
                        err = repo_error or "no clone"
                    else:
                        out, err, dt = run_tool(
                            [args.bin, "-C", str(clone), "history", q["question"], "--json", "-n", str(K)], env, args.timeout)
                        if out is not None:
                            try:
                                ids = parse_history(out)
                            except (ValueError, KeyError, TypeError) as e:
                                err = f"unreadable JSON answer: {e}"
                        if not err:
                            tool_times.append(dt)
                        if err and not printed_error:
                            print(f"[{repo}] history failed (further failures in this repo not printed): {err}", file=sys.stderr)
                            printed_error = True
                else:
                    t0 = time.perf_counter()
                    ids = grep_baseline(str(mirror), head, words, sysname == "grep-all")
                    dt = time.perf_counter() - t0
                row["systems"][sysname] = {
                    "ids": ids[:K], "rank": rank_of(ids, gold), "rank_also": rank_of(ids, also) if also else None,
                    "error": err, "seconds": round(dt, 4) if dt is not None else None,
                }
            results.append(row)

    # ---- report
    def table(title: str, groups: list[tuple[str, list[dict]]]) -> list[str]:
        lines = [f"### {title}", "", "| system / group | n | MRR@10 | Acc@1 | Acc@5 | Acc@10 |", "|---|---|---|---|---|---|"]
        for gname, rows in groups:
            for s in systems:
                lines.append(fmt_row(f"{s} · {gname}" if gname else s, metrics([r["systems"][s]["rank"] for r in rows])))
        return lines + [""]

    out_lines = ["## history kit", ""]
    out_lines += table("overall", [("", results)])
    out_lines += table("per repository", [(r, [x for x in results if x["repo"] == r]) for r in repos])
    kinds = sorted({x["kind"] for x in results})
    out_lines += table("per kind", [(k, [x for x in results if x["kind"] == k]) for k in kinds])
    if "git-rag" in systems:
        errs = sum(1 for r in results if r["systems"]["git-rag"]["error"])
        p50 = statistics.median(tool_times) if tool_times else float("nan")
        also_hits = sum(1 for r in results if r["systems"]["git-rag"]["rank"] is None and r["systems"]["git-rag"]["rank_also"])
        out_lines.append(f"git-rag history: p50 wall {p50 * 1000:.0f} ms over {len(tool_times)} successful calls; "
                         f"{errs} failed calls; {also_hits} misses that returned a PR's own commit ('also') instead of the gold")
        out_lines.append("index seconds: " + ", ".join(f"{r} {s:.1f}" for r, s in index_secs.items()))
    print("\n".join(out_lines))

    if args.out:
        summary = {s: metrics([r["systems"][s]["rank"] for r in results]) for s in systems}
        Path(args.out).write_text(json.dumps({
            "heads": {r: HEADS[r] for r in repos}, "summary": summary,
            "history_p50_seconds": statistics.median(tool_times) if tool_times else None,
            "index_seconds": index_secs, "questions": results}, indent=1))
        print(f"\nper-question results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Mines test-selection data for `git rag impact` from git histories.

Each sample is a real commit that changed code and the tests that already
existed for it: at the commit's parent, the index is brought there, the
commit's non-test part is applied to the work tree (as an agent's edit is),
and `git rag impact --json` is asked which tests to run. The test files the
commit itself edited are the labels; every test `impact` lists is a
candidate, with its `signals` (each kind of evidence's value before its
weight). `scripts/fit-impact.py` fits the weights on these samples.

No benchmark's repositories belong in the list (SWE-bench, MULocBench,
semble's, the dev kit's): the weights must come from elsewhere.

    mine-impact.py OUT --mirrors DIR --repos owner/name,... [--per-repo 30] [--bin git-rag]
    mine-impact.py OUT --mirrors DIR --commits OUT/commits.txt      # replay exactly
    mine-impact.py OUT --mirrors DIR --repos ... --changes configuration   # configuration alone
    mine-impact.py OUT --mirrors DIR --repos ... --base-rates       # how often each kind edits a test

Resumable: rerun the same command and the samples already in OUT are kept.

Writes OUT/samples.jsonl and OUT/commits.txt (`owner/name commit` per line:
the list a replay reads). Repositories come from `fetch github:OWNER/NAME`
(DIR/<owner>+<name>/repo).
"""
import argparse, json, os, re, subprocess, sys, time

CODE = {".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".go", ".java", ".kt", ".rs", ".rb", ".php", ".cs", ".c", ".cc",
        ".cpp", ".h", ".hpp", ".scala", ".swift", ".lua", ".ex", ".exs"}
MAX_FILES = 10  # a commit over this is a sweep, not a change and its tests


def is_test(path):
    """As git-rag's `is_test_path` reads a path (tests/, test_x, x_test, XTest, x.spec.ts, spec/)."""
    lower = path.lower()
    name = lower.rsplit("/", 1)[-1]
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    parts = lower.split("/")
    return (any(p in ("test", "tests", "testing", "__tests__", "spec", "specs") for p in parts[:-1])
            or name.startswith("test_") or re.search(r"(_test|_tests|_spec)\.", name) is not None
            or ".test." in name or ".spec." in name
            or re.search(r"(Test|Tests|Spec)$", stem) is not None)


def is_fixture(path):
    return any(p in ("fixtures", "fixture", "testdata", "examples", "example", "data", "__snapshots__", "snapshots")
               for p in path.lower().split("/"))


def git(*a, cwd, check=True, **k):
    r = subprocess.run(["git", *a], cwd=cwd, capture_output=True, text=True, **k)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(a[:3])}: {r.stderr[-300:]}")
    return r.stdout


def is_docs(path):
    """Documentation or a changelog, as git-rag's roles read a path (roughly)."""
    lower = path.lower()
    return (os.path.splitext(lower)[1] in (".md", ".rst", ".txt", ".adoc") or lower.split("/")[0] in ("doc", "docs")
            or any(w in lower.rsplit("/", 1)[-1] for w in ("changelog", "changes", "history", "news", "release")))


def candidates(work, changes="code", limit=3000):
    """Commits that modify test files existing at their parent and, with
    `changes` "code", code files; with "configuration", no code file and not
    documentation alone (CI workflows, build and tool configuration)."""
    out = []
    for c in git("log", "--first-parent", "--no-merges", "--format=%H", "-n", str(limit), "HEAD", cwd=work).split():
        status = git("diff-tree", "--no-commit-id", "--name-status", "-r", c, cwd=work).splitlines()
        if not status or len(status) > MAX_FILES:
            continue
        mods = [l.split("\t")[-1] for l in status if l.startswith("M\t")]
        tests = [p for p in mods if os.path.splitext(p)[1] in CODE and is_test(p) and not is_fixture(p)]
        if changes == "code":
            sources = [p for p in mods if os.path.splitext(p)[1] in CODE and not is_test(p)]
        else:
            rest = [l.split("\t")[-1] for l in status if not is_test(l.split("\t")[-1])]
            configuration = rest and not any(os.path.splitext(p)[1] in CODE for p in rest) and not all(is_docs(p) for p in rest)
            sources = rest if configuration else []
        if sources and tests:
            out.append(c)
    return out[::-1]  # oldest first: the index moves forward


def base_rates(work, limit=3000):
    """Per kind of commit ("code", "configuration", "documentation"), how many
    commits there are and how many of them edit a test file (the last `limit`
    first-parent commits of at most MAX_FILES files)."""
    counts = {}
    for c in git("log", "--first-parent", "--no-merges", "--format=%H", "-n", str(limit), "HEAD", cwd=work).split():
        paths = [l.split("\t")[-1] for l in git("diff-tree", "--no-commit-id", "--name-status", "-r", c, cwd=work).splitlines()]
        rest = [p for p in paths if not is_test(p)]
        if not rest or len(paths) > MAX_FILES:
            continue
        kind = "code" if any(os.path.splitext(p)[1] in CODE for p in rest) else "documentation" if all(is_docs(p) for p in rest) else "configuration"
        edits = any(is_test(p) and os.path.splitext(p)[1] in CODE and not is_fixture(p) for p in paths)
        n, k = counts.get(kind, (0, 0))
        counts[kind] = (n + 1, k + edits)
    return counts


def sample(repo, work, commit, env, binary, with_message=False):
    parent = git("rev-parse", f"{commit}^", cwd=work).strip()
    status = git("diff-tree", "--no-commit-id", "--name-status", "-r", commit, cwd=work).splitlines()
    paths = [l.split("\t")[-1] for l in status]
    sources = [p for p in paths if not is_test(p)]
    gold = [p for p in paths if is_test(p) and not is_fixture(p) and os.path.splitext(p)[1] in CODE
            and subprocess.run(["git", "cat-file", "-e", f"{parent}:{p}"], cwd=work).returncode == 0]
    git("checkout", "-q", "-f", parent, cwd=work)
    git("clean", "-q", "-fdx", cwd=work)
    r = subprocess.run([binary, "index", "--quiet", "--no-semantic"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return None, f"index failed: {r.stderr[-200:]}"
    diff = git("diff", "--binary", parent, commit, "--", *sources, cwd=work)
    ap = subprocess.run(["git", "apply", "-"], cwd=work, input=diff, capture_output=True, text=True)
    if ap.returncode != 0:
        return None, f"does not apply: {ap.stderr[-200:]}"
    subject = git("log", "-1", "--format=%s", commit, cwd=work).strip()
    # The commit's subject as what the change is for, as `impact <commit>` reads it (binaries since 0aae299).
    message = ["--message", subject] if with_message else []
    t0 = time.time()
    r = subprocess.run([binary, "impact", "--json", "-n", "300", *message], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    took = time.time() - t0
    git("checkout", "-q", "-f", parent, cwd=work)
    if r.returncode != 0:
        return None, f"impact failed: {r.stderr[-200:]}"
    ans = json.loads(r.stdout)
    cands = [{"path": t["path"], "score": t["score"], "signals": t.get("signals", {}), "why": t.get("why", [])} for t in ans.get("tests", [])]
    return {"repo": repo, "commit": commit, "subject": subject, "with_message": with_message, "sources": sources, "gold": gold,
            "changed": len(ans.get("changed", [])), "configuration_only": ans.get("configuration_only", False), "candidates": cands,
            "seconds": round(took, 3)}, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out"); ap.add_argument("--mirrors", required=True)
    ap.add_argument("--repos", default=""); ap.add_argument("--commits", default="")
    ap.add_argument("--per-repo", type=int, default=30); ap.add_argument("--bin", default="git-rag")
    ap.add_argument("--with-message", action="store_true", help="ask impact with the commit's subject as --message")
    ap.add_argument("--changes", choices=["code", "configuration"], default="code",
                    help="which commits: code with its tests (the default), or configuration alone with tests")
    ap.add_argument("--base-rates", action="store_true",
                    help="print, per kind of commit of the --repos' histories, the share that edits a test file (weights.rs's rates)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.base_rates:
        total = {}
        for repo in [r for r in a.repos.split(",") if r]:
            work = os.path.join(a.out, "repos", repo.replace("/", "+"))
            if not os.path.isdir(work):
                subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", os.path.join(a.mirrors, repo.replace("/", "+"), "repo"), work], check=True)
            for kind, (n, k) in base_rates(work).items():
                total[kind] = (total.get(kind, (0, 0))[0] + n, total.get(kind, (0, 0))[1] + k)
        print(json.dumps({kind: {"commits": n, "edit_a_test": k, "share": round(k / n, 3)} for kind, (n, k) in sorted(total.items())}))
        return
    plan = {}
    if a.commits:
        for line in open(a.commits):
            if line.strip():
                repo, c = line.split()
                plan.setdefault(repo, []).append(c)
    else:
        for repo in [r for r in a.repos.split(",") if r]:
            plan[repo] = None
    # Resumable: what a previous run wrote is kept and not asked again.
    done = set()
    if os.path.exists(os.path.join(a.out, "samples.jsonl")):
        for line in open(os.path.join(a.out, "samples.jsonl")):
            row = json.loads(line)
            done.add((row["repo"], row["commit"]))
    listed = open(os.path.join(a.out, "commits.txt"), "a")
    samples = open(os.path.join(a.out, "samples.jsonl"), "a")
    for repo, commits in plan.items():
        src = os.path.join(a.mirrors, repo.replace("/", "+"), "repo")
        if not os.path.isdir(src):
            print(f"{repo}: not fetched ({src})", file=sys.stderr); continue
        work = os.path.join(a.out, "repos", repo.replace("/", "+"))
        if not os.path.isdir(work):
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", src, work], check=True)
        if commits is None:
            found = candidates(work, a.changes)
            step = max(1, len(found) // a.per_repo)
            commits = found[::step][-a.per_repo:]
        env = dict(os.environ, GIT_RAG_DIR=os.path.join(a.out, "idx", repo.replace("/", "+")))
        kept = 0
        for c in commits:
            if (repo, c) in done:
                kept += 1
                continue
            try:
                row, why = sample(repo, work, c, env, a.bin, a.with_message)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                row, why = None, str(e)[-200:]
            if row is not None and a.changes == "configuration" and not row["configuration_only"]:
                # git-rag reads one of its files as code (a pom.xml, a Gemfile): not this population.
                row, why = None, "impact reads it as a change of code"
            if row is None or not row["gold"]:
                print(f"{repo} {c[:12]}: skipped ({why or 'no test file existed before'})", file=sys.stderr); continue
            kept += 1
            listed.write(f"{repo} {c}\n"); listed.flush()
            samples.write(json.dumps(row) + "\n"); samples.flush()
        print(f"{repo}: {kept} samples", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Mines ranking training data, (question, targets) pairs, from git histories.

A commit whose message describes a behaviour is a question a person could have
asked of the repository at its parent, and the code it changed is where the
answer lies. Per selected commit, one row per kind of pair:

  - issue-like: the subject and the body (trailers, URLs, issue-template
    noise and bare `#123` references taken out), as an issue report reads;
  - question-like: the subject alone, when it has 4 to 12 words.

Targets are the non-test source files the commit modified (not the files it
only added or deleted). Test code is what git-rag's `is_test_path` says
(tests/, test_x, x_test, XTest, x.spec.ts, spec/, __tests__/ ...) and, kept out
of the targets too, what that rule misses (`Foo.Tests/`, `UnitTests/`,
`FooSpecs.cs`, `FooTester.cs`, `test.zig`, `tests.cpp`); so are fixtures, test
data, examples, demos, docs, vendored, generated, minified and amalgamated
files (`single_include/`, `deno_dist/`, `*.Designer.cs`, `*.pb.go` ...),
dot-folders and build files (`build.zig`, `mix.exs`, `setup.py`, `*.config.js`,
sbt's `project/`). Each target comes with the line ranges it changed on the
PARENT side (`git diff -U0 -w parent commit`: a hunk's old-side range; a pure
insertion after old line L is L..L; hunks 3 lines apart or less are merged),
so that the repository indexed at `parent` holds every target.

Which commits. The first-parent history, newest first, up to --max-commits.
A GitHub pull-request merge (`Merge pull request #N from …`, bors' `Auto merge
of #N` / `Merge #N`) stands for its pull request: its title (the first line
of the body) is the subject, the rest of the body the description, and the
diff is taken against the first parent; every other merge (`Merge branch …`,
`Merge remote-tracking branch …`) is skipped. Skipped too: reverts, releases
and version bumps, formatting / lint / typo / docs / CI / build / dependency
commits (by the subject, its conventional-commit type or `[tag]`, and bots'
commits), toolchain ports, renames, refactors and clean-ups, test-only and
docs-only commits (and docs changes that touch a line of code: 3+ docs files,
twice the targets),
and sweeps (more than 10 source files or 50 files in all, or more than 1500
changed lines in the targets). A subject keeps 4+ words once its
conventional-commit type and scope (`fix(parser): `), leading `[tags]`, and
`(#123)` / `[skip ci]` tails are taken out; a project's own `area: subject`
style (Go, C projects) is kept as it is written (the filters read the text
after it too). A subject is git's: the first paragraph when it wraps onto 2-3
lines (OpenBSD style), else the first line. Of the commits that pass,
--per-repo are kept per repository, spread evenly over the window (the
i-th of n kept is candidate floor(i * n_candidates / n)): deterministic, no
randomness.

Each row of OUT/pairs.jsonl:
  {"repo", "language", "kind": "issue"|"question", "query", "parent", "commit",
   "targets": [{"path", "start_line", "end_line"}]}
OUT/commits.txt lists `owner/name commit` per kept commit (the list a replay
reads: `--commits` gives the same rows from the same mirrors; the language
comes from the repositories file), OUT/stats.json the counts.

Name-like pairs (not made here: they need an index). The collect step will
make them from the same parent commits once each is indexed: it samples
definitions from the index's symbol table at that commit (a fixed seed, a few
per commit, functions / methods / types / constants, not test code), writes
each as people write a name (bare `parse_args`; qualified in the language's
own separator: `Config::load` for Rust / C++ / PHP static, `Config.load` for
Python / JS / TS / Java / Kotlin / C# / Go / Swift / Scala / Dart, `App\\Http\\Kernel`
for PHP namespaces, `Module.fun` for Elixir / OCaml / Haskell, `ns/fn` for
Clojure), with the definition's file and lines as the target, and keeps a
name only when another file of the index defines a symbol of the same name,
so that same-named decoys are in the candidate pool and a name match alone
cannot rank the target first.

No benchmark's repositories may be mined: every repository listed (and every
one in a --commits file) is checked against semble's benchmark (its 63
repositories, development and held-out, read from the snapshot's
benchmarks/repos.json), SWE-bench Lite and Verified (their 12 repositories and
every repository field of ../shared/eval/swebench/*.jsonl), MULocBench (the
repository field of ../shared/eval/mulocbench/dev.jsonl) and the dev kit's
packages; the run refuses if one is there (`check` runs that alone).

    mine-ranking.py check --repos-file scripts/ranking-repos.txt [--mirrors DIR]
    mine-ranking.py mine OUT --mirrors DIR --repos-file scripts/ranking-repos.txt [--per-repo 400] [--max-commits 4000]
    mine-ranking.py mine OUT --mirrors DIR --commits OUT/commits.txt [--repos-file F]   # replay exactly
    mine-ranking.py sample OUT [--kind issue] [-n 50] [--seed 82]    # rows to read for label noise

The repositories file holds `owner/name<TAB>language` per line (`#` comments);
repositories come from `fetch github:OWNER/NAME` (DIR/<owner>+<name>/repo).
"""
import argparse, glob, json, os, random, re, subprocess, sys, time
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEMBLE_MIRROR, SEMBLE_COMMIT = "michalfedyna+semble", "b8543c3"
# SWE-bench Lite and Verified: the 12 repositories of both sets.
SWEBENCH = {"django/django", "sympy/sympy", "astropy/astropy", "matplotlib/matplotlib", "scikit-learn/scikit-learn",
            "pytest-dev/pytest", "sphinx-doc/sphinx", "psf/requests", "pallets/flask", "pydata/xarray",
            "pylint-dev/pylint", "mwaskom/seaborn"}
DEV_KIT = {"psf/requests", "expressjs/express", "TanStack/query", "algesten/ureq", "spf13/cobra"}
# Refused under any owner too (a fork or a move is the same code).
BARE_NAMES = {r.split("/")[1].lower() for r in SWEBENCH | DEV_KIT} - {"query"}

CODE = {"py", "pyi", "pyw", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "rs", "go", "java", "c", "h", "cc",
        "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "cs", "rb", "rake", "lua", "kt", "kts", "swift",
        "php", "scala", "sc", "sh", "bash", "zsh", "ex", "exs", "hs", "zig", "erl", "hrl", "ml", "mli", "m", "jl", "r",
        "dart", "clj", "cljs", "cljc", "pl", "pm", "vue", "svelte"}
DOC_EXT = {"md", "mdx", "rst", "txt", "adoc", "asciidoc", "textile", "html", "org", "pod", "rdoc"}
MAX_SOURCES, MAX_FILES, MAX_LINES = 10, 50, 1500  # over any of these a commit is a sweep
NOT_TARGET_DIRS = {"fixtures", "fixture", "testdata", "test-data", "test_data", "examples", "example", "samples",
                   "sample", "vendor", "vendored", "third_party", "third-party", "thirdparty", "external", "node_modules",
                   "bower_components", "generated", "__generated__", "__snapshots__", "snapshots", "dist", "docs", "doc",
                   "website", "site", "benchmark-data", "deno_dist", "demo", "demos", "sandbox", "playground",
                   "single_include", "amalgamation", "amalgamated", "bundle", "bundles"}
# Build and tool configuration in a language (a change there is tooling, not behaviour).
BUILD_FILE = re.compile(r"^(build\.zig|mix\.exs|setup\.py|noxfile\.py|tasks\.py|fabfile\.py|conftest\.py|Package(@[\w.-]+)?\.swift"
                        r"|build\.rs|extconf\.rb|Rakefile|Gemfile|Guardfile|Dangerfile|Fastfile|Podfile|Setup\.hs|rebar\.config"
                        r"|[\w.-]+\.gemspec|[Gg]ulpfile\.\w+|Gruntfile\.\w+|\.?[\w-]+\.config\.[cm]?[jt]s|\.eslintrc\.\w+"
                        r"|\.prettierrc\.\w+|babel\.config\.\w+|karma\.conf\.\w+|[\w.-]+\.gradle\.kts|build\.sbt|plugins\.sbt)$")
GENERATED = re.compile(r"(\.min\.(js|css)$|\.map$|\.pb\.go$|_pb2(_grpc)?\.pyi?$|\.g\.dart$|\.freezed\.dart$"
                       r"|\.mocks\.dart$|\.[Dd]esigner\.cs$|[._]generated\.|\.gen\.go$|^package-lock\.json$|^yarn\.lock$|\.lock$)")


# ------------------------------------------------------------------ paths

def is_test(path):
    """git-rag's `is_test_path` (src/analysis/lang.rs), line for line."""
    file = path.rsplit("/", 1)[-1]
    stem = file.split(".")[0]
    stem_ends = lambda suffixes: any(len(stem) > len(t) and stem.endswith(t) for t in suffixes)
    file_ends = lambda exts: any(file.endswith(e) for e in exts)
    if (stem_ends(["Test", "Tests"]) and file_ends([".java", ".cs", ".kt", ".swift", ".php", ".scala"])
            or stem_ends(["Spec", "Suite"]) and file_ends([".scala", ".kt", ".hs", ".swift"])
            or file.endswith(".bats") or file.endswith(".t")
            or stem_ends(["_SUITE"]) and file_ends([".erl"])):
        return True
    for part in path.lower().split("/"):
        pstem = part.split(".")[0]
        if (part in ("test", "tests", "testing", "__tests__", "spec", "specs", "e2e", "fixtures", "examples", "testdata")
                or part.startswith("test_")
                or ("." in part and any(pstem.endswith(t) for t in ("_test", "_tests", "_spec", "_unittest")))
                or ".test." in part or ".spec." in part or part == "conftest.py"):
            return True
    return False


TEST_DIR = re.compile(r"(?i:(^|[._-])_*(unit|integration|functional|performance|perf|shared|e2e)?_*(tests?|specs?)_*$)"
                      r"|[a-z0-9](Tests?|Specs?|Testers?)$|^(test|spec)[A-Z]")
TEST_STEM = re.compile(r"^(tests?|specs?)$|[a-z0-9](Tests?|Specs?|Tester|TestCase|TestUtils?)$|_(tests?|specs?)$")


def is_test_too(path):
    """Test code git-rag's rule does not name, kept out of the targets: `Foo.Tests/`, `UnitTests/`,
    `__performance_tests__/`, `FooSpecs.cs`, `FooTester.cs`, `test.zig`, `tests.cpp`."""
    parts = path.split("/")
    stem = parts[-1].split(".")[0]
    return any(TEST_DIR.search(p) for p in parts[:-1]) or TEST_STEM.search(stem) is not None


def is_excluded(path):
    """Not a target: fixtures, test data, examples, docs, vendored, generated, minified, dot-folders, build files."""
    parts = path.split("/")
    if is_test_too(path):
        return True
    if any(p.lower() in NOT_TARGET_DIRS for p in parts[:-1]) or any(p.startswith(".") for p in parts[:-1]):
        return True
    if len(parts) > 1 and parts[0] == "project" and parts[-1].endswith(".scala"):  # sbt's build definition
        return True
    return GENERATED.search(parts[-1]) is not None or BUILD_FILE.match(parts[-1]) is not None


def extension(path):
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""


SCRIPT_HEAD = re.compile(rb"^(#!|.*-\*-\s*(shell-script|sh|bash)\s*-\*-|.*\bvim?:.*\b(ft|filetype)=(sh|bash|zsh)\b)")


class Blobs:
    """The first bytes of blobs, from one `git cat-file --batch` per repository."""

    def __init__(self, gitdir):
        self.p = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)

    def head(self, rev, path, n=200):
        self.p.stdin.write(f"{rev}:{path}\n".encode()); self.p.stdin.flush()
        line = self.p.stdout.readline().split()
        if len(line) < 3 or line[1] != b"blob":
            return b""
        size = int(line[2])
        data = self.p.stdout.read(size + 1)
        return data[:n]

    def close(self):
        self.p.stdin.close(); self.p.wait()


def is_source(path, blobs, parent):
    """A source file git-rag reads as code: by its extension, or an extension-less script by its first line."""
    ext = extension(path)
    if ext:
        return ext in CODE
    return SCRIPT_HEAD.match(blobs.head(parent, path).split(b"\n", 1)[0]) is not None


# ------------------------------------------------------------------ messages

CC_KEEP = {"fix", "fixes", "fixed", "feat", "feature", "perf", "bug", "bugfix", "hotfix", "enhancement", "improvement",
           "improve", "security", "sec", "change", "changed", "behavior", "behaviour", "add", "new"}
CC_SKIP = {"docs", "doc", "documentation", "chore", "ci", "build", "test", "tests", "testing", "style", "refactor",
           "refactoring", "release", "revert", "deps", "dep", "dependencies", "bump", "lint", "format", "fmt", "typo",
           "changelog", "wip", "meta", "infra", "tooling", "misc", "cleanup", "example", "examples", "readme", "bench",
           "benchmark", "benchmarks", "website", "site", "release-notes", "github", "gha", "nix", "cargo", "npm",
           "version", "merge", "deps-dev", "dev-deps", "i18n", "l10n", "translation", "translations", "coverage", "workflow", "actions"}
SKIP_SUBJECT = re.compile(r"""(?ix)
    ^(revert|reapply|merge|bump|changelog|initial\ commit|wip\b|fixup|squash|amend|typos?\b|fix(ed)?\ (a\ |some\ )?typos?
      |docs?\b|documentation|document\ (the|how|that|why|usage|what)\b|readme|reformat|formatting
      |format\ (the\ )?(code|files?|sources?|with|using|all)\b|run\ (black|prettier|gofmt|rustfmt|cargo\ fmt|scalafmt|ocamlformat)
      |lint\b|linting|rename|relocate|reorgani[sz]e|restructure|refactor|refactoring|clean\ ?up|cleanup|tidy|nit\b|nits\b
      |minor\b|cosmetic|code\ style|test\b|tests\b|testing\b|add(ed)?\ (a\ |some\ |more\ )?(unit\ |regression\ )?tests?\b
      |more\ tests|update\ tests?|ci\b|travis|appveyor|github\ actions?|regenerate|update\ generated|update\ submodule
      |fix(ed)?\ (the\ |a\ )?(ci|build|compilation|compile|tests?|lint|flaky|docs?|doc\ comments?)\b
      |update\ (the\ )?(copyright|license|authors|contributors|readme|docs|changelog|badges?|logo|sponsors?|gitignore|codeowners)
      |add\ (a\ )?(license|changelog|readme|badges?|logo|sponsors?|gitignore|codeowners|funding|issue\ templates?)
      |apply\ (suggestions?|review)|address(ed)?\ (review|comments|feedback|pr)|pr\ feedback|review\ (comments|feedback)
      |(remove|fix|clean|strip)\s+(trailing\s+)?whitespace
      |(release|releasing|prepare|preparing|prep|cut|tag|tagging)\s+(for\s+)?(the\s+)?(new\s+)?(v?\d|version|release|rc\b|beta|alpha)
      |(fix|silence|suppress|squelch|quiet|resolve|address)\s+(\S+\s+){0,3}warnings\b
      |(convert|port|migrate|rewrite|translate|switch)\s+(\S+\s+){0,4}to\s+(kotlin|typescript|ts|es6|es\s*modules?|esm|swift\s*\d
       |java|python\s*3|rust|zig|async/await|f-strings?|pathlib|junit\s*\d|jest|vitest|mocha|pytest|github)\b
      |(update|upgrade|port|migrate|adapt|bump)\s+(code\s+)?(to|for)\s+(the\s+)?(latest\s+|new\s+)?(zig|go|golang|rust|rustc|node|nodejs
       |python|swift|kotlin|scala|java|jdk|dart|flutter|elixir|otp|erlang|ocaml|ghc|php|ruby|lua|luajit|neovim|nvim|gcc|clang
       |msvc|xcode|typescript|ts|dotnet|\.net|net\d)\b
      |(update|set|increment|change)\s+(the\s+)?(package\s+|project\s+)?version\b|version\s+v?\d|release\s+v?\d|v?\d+\.\d+
      |touch-?\ ?ups?|(some|more|various|misc|miscellaneous|several|small|minor|a\s+few|few|random|assorted)\s+(more\s+)?(small\s+|minor\s+)?
       (updates?|fix(es)?|changes|improvements|tweaks|cleanups?|stuff|things|work|refactorings?)\b)
    | \b(typos?|spelling|readme|changelog|dependabot|renovate|gofmt|rustfmt|clippy|prettier|eslint|rubocop|php-cs-fixer
      |swiftlint|swiftformat|ocamlformat|golangci|black\ formatting|code\ style|coding\ style|copyright|license\ headers?
      |github\ actions?|ci\ (config|job|pipeline|build|workflow)|travis|appveyor|circleci|codecov|code\ coverage
      |release\ notes|version\ bump|bump\ (the\ )?version|prepare\ (for\ )?(the\ )?release
      |(compiler|gcc|clang|msvc|build|compile|unused[- ]\w+|sign-compare)\s+warnings?|ci|docs|documentation|docstrings?
      |doc\s+comments?|docs?\s+(fix|fixes|update|updates|changes|improvements|tweaks)|doc\s*tests?|doctests?|fixups?|(previous|prev|last|earlier)\s+commit|todos?\s+left|work\s+in\s+progress|working\s+on|miri|api\s+docs|javadocs?|jsdoc|rustdoc|haddock|typedoc|yardoc|phpdoc
      |(remove|removal\s+of|drop|delete|get\s+rid\s+of)\s+(some\s+|an?\s+|the\s+|all\s+)?(redundant|unused|unnecessary|dead
       |duplicated?|obsolete|useless|superfluous|extraneous|needless|leftover|stale))\b
    | \b(in|to|for|from)\s+(more\s+|the\s+|all\s+|our\s+|some\s+|unit\s+|other\s+)?tests\s*$
    | \b(adjust|update|fix|improve|refactor|rewrite|simplify|clean\s*up|add|remove|move|rename|split|speed\s+up|enable|disable
       |skip)\s+(\S+\s+){0,2}(tests|specs|test\s+cases?|test\s+suite|testcases?|benchmarks?)\b
    | ^(update|upgrade|bump|pin|unpin)\b.*(\bto\ v?\d|\bdependenc(y|ies)\b|\bdeps\b)
    """)
BOT = re.compile(r"(\[bot\]|dependabot|renovate|greenkeeper|scala-steward|github-actions|snyk|pre-commit-ci|imgbot"
                 r"|allcontributors|mergify|copilot-swe)", re.I)
TRAILER = re.compile(r"""(?ix)^\s*(signed-off-by|co-authored-by|co-developed-by|reviewed-by|reviewed-on|acked-by
    |tested-by|reported-by|reported-and-tested-by|suggested-by|helped-by|requested-by|approved-by|merged-by|noticed-by
    |inspired-by|thanks-to|based-on-patch-by|authored-by|original-author|cc|change-id|pr-url|backport-pr-url
    |differential\ revision|cherry-picked-from|original-commit|x-[\w-]+|git-svn-id|changelog|release-notes?|release\ note
    |changelog-entry|pr-close|obtained\ from|sponsored\ by|mfc\ after|ignore-this|darcs-hash|svn\ path|extra\s*
    |committed|committer|author|date)\s*:.*$|^\s*--HG--\s*$""")
# Keys that are text too ("Fix: the parser ..."): a trailer only with a reference, a URL or a commit after them.
TRAILER_REF = re.compile(r"(?i)^\s*(refs?|fix(es)?|closes?|resolves?|related(-to)?|see(-also)?|issues?|bug|ticket|link"
                         r"|jira|part-of|pull[- ]request|pr|follow-?up(-to)?|supersedes|replaces)\s*:\s*"
                         r"(#\d+|gh-\d+|[\w.-]+/[\w.-]+#\d+|https?://\S+|[0-9a-f]{7,40}\b|[A-Z]+-\d+|\s*$)")
REF_LINE = re.compile(r"(?i)^\s*[-*]?\s*(fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see|related\s+to|part\s+of|towards?"
                      r"|addresses|address|follow[- ]up\s+(to|of|on)|cc|/cc)\s*:?\s+((#|gh-)\d+|[\w.-]+/[\w.-]+#\d+"
                      r"|https?://\S+|@\S+)([\s,.;]+(and\s+)?((#|gh-)\d+|[\w.-]+/[\w.-]+#\d+|https?://\S+|@\S+))*[\s.]*$")
TEMPLATE = re.compile(r"""(?ix)(thank\s+you\s+for\s+(your|contributing|opening|the)|contributing\s+guide|before\s+submitting
    |by\s+submitting\s+this|i\s+have\s+(read|signed|added|updated|run|tested|checked)|pull\s+request\s+template|type\s+of\s+change
    |delete\s+(this|the|any)\s+(line|section|option)|this\s+pr\s+(closes|fixes|resolves)|please\s+(describe|provide|include|check
    |make\s+sure|read|delete|fill|explain)|\[x\]|\[\s\]|^\s*-\s*\[.?\]|cla\s+signed|^\s*(checklist|todo)\s*:?\s*$
    |^\s*(\*\*)?(related\s+)?(issues?|tickets?|prs?)(\*\*)?\s*:?\s*$|^\s*(x|n/a|none|yes|no)\s*$)""")
REVERTS = re.compile(r"(?i)^\s*(\(cherry picked from commit|this reverts commit|this reverts)\b")
HEADING = re.compile(r"^\s*#{1,6}\s+\S.*$|^\s*\*\*[^*]{1,60}\*\*:?\s*$")
SQUASH_NOISE = re.compile(r"(?i)^\s*\*\s+(fix(ed)?\s+)?(tests?|lint(ing)?|format(ting)?|typos?|review|comments?|merge.*|wip"
                          r"|cleanup|clean\s+up|update|updates|changelog|docs?|nits?|style|rebase|revert.*|\S+(\s+\S+){0,2}|.*\b(tests?|docs?|doc\s+comments?|comments?|typos?|lint|clippy|fmt|format(ting)?|review|changelog|readme|grammar|spelling|ci)\b.*)\s*\.?$")
URL = re.compile(r"<?https?://\S+>?")
MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
ISSUE_REF = re.compile(r"\(\s*((#|gh-|GH-)\d+[\s,]*)+\)|(?<![\w/&])(#|GH-|gh-)\d+\b|\[(skip ci|ci skip|skip-ci|no ci)\]", re.I)
PREFIX = re.compile(r"^\s*([\w-]+)(?:(\(([^)]*)\))?!?:|(\(([^)]*)\))!?)\s+(?=\S)")
TAGS = re.compile(r"^\s*(\[[^\]]{1,30}\]\s*)+")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'.-]*")
MERGE_PR = re.compile(r"^Merge pull request #\d+ from \S+$")
BORS = re.compile(r"^(Auto merge of #\d+ - .*|Merge #\d+|Merged PR \d+: .*)$")
BORS_LINE = re.compile(r"^\d+:\s*|\s+r=\S+.*$|\s+a=\S+.*$")


def strip_prefix(line):
    m = PREFIX.match(re.sub(r"^\s*[-*]\s+", "", line))
    return line[m.end():] if m and m.group(1).lower() in CC_KEEP | CC_SKIP else line


def clean_subject(subject):
    """The subject as a question reads, or None when it is no behaviour."""
    s = ISSUE_REF.sub("", URL.sub("", subject)).strip()
    tags = re.findall(r"\[([^\]]{1,30})\]", TAGS.match(s).group(0)) if TAGS.match(s) else []
    if any(t.strip().lower() in CC_SKIP for t in tags):
        return None
    s = re.sub(r"\s*\b(fixes|closes|resolves|refs?|see)\s*:\s*$", "", s, flags=re.I)
    s = re.sub(r"\(\s*(closes|fixes|fix|refs?|see|resolves|issue)?\s*\)(?<!\(\))", "", TAGS.sub("", s), flags=re.I)
    s = re.sub(r"[,;]?\s*\b(closes|fixes|fix|refs?|see|resolves|(github\s+)?issue(\s+\d+)?)\s*\.?\s*$", "", s, flags=re.I)
    s = re.sub(r",\s*(from|by|reported\s+by|patch\s+from|diff\s+from)\s+[A-Z][^,;:]*$", "", s)
    s = re.sub(r"\s+([:;,.])", r"\1", s)
    m = PREFIX.match(s)
    if m:
        kind = m.group(1).lower()
        scope = (m.group(3) or m.group(5) or "").lower()
        if kind in CC_SKIP or scope in CC_SKIP:
            return None
        if kind in CC_KEEP:
            s = s[m.end():]
    s = re.sub(r"\s+", " ", s).strip(" .;:,-")
    rest = re.sub(r"^[\w./*-]+(,\s*[\w./*-]+)*\s*:\s*", "", s)  # the text after a project's `area: ` prefix
    if not s or SKIP_SUBJECT.search(s) or SKIP_SUBJECT.search(rest):
        return None
    return s


def same_text(a, b):
    norm = lambda t: re.sub(r"[\W_]+", " ", ISSUE_REF.sub("", t)).strip().lower()
    return norm(a) == norm(b) or norm(re.sub(r"^\s*[-*]\s*", "", a)) == norm(b)


def clean_body(body, subject=""):
    """The body without trailers, URLs, template noise and bare issue references (nor lines that repeat the subject)."""
    body = re.sub(r"<!--.*?(-->|$)", "", body, flags=re.S)
    body = re.sub(r"```.*?(```|$)", lambda m: m.group(0) if len(m.group(0)) < 1200 else "", body, flags=re.S)
    lines = []
    for line in body.splitlines():
        if (TRAILER.match(line) or TRAILER_REF.match(line) or REF_LINE.match(line) or TEMPLATE.search(line) or HEADING.match(line)
                or SQUASH_NOISE.match(line) or REVERTS.match(line)
                or subject and (same_text(line, subject) or same_text(strip_prefix(line), subject))):
            continue
        line = MD_LINK.sub(r"\1", line)
        line = URL.sub("", line)
        line = ISSUE_REF.sub("", line).rstrip()
        if not WORD.search(line):
            line = ""
        lines.append(line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if len(text) > 3000:
        text = text[:3000].rsplit("\n", 1)[0]
    return text


def words(s):
    return len(WORD.findall(s))


def message(msg, is_merge):
    """(subject, body) of a commit as its pull request or itself tells it, or None for a merge of no pull request."""
    lines = msg.strip("\n").split("\n")
    first, rest = lines[0].strip(), lines[1:]
    if not is_merge:  # git's subject is the first paragraph (a wrapped subject, OpenBSD style), when short
        para = next((i for i, l in enumerate(lines) if not l.strip()), len(lines))
        if 1 < para <= 3:
            first, rest = " ".join(l.strip() for l in lines[:para]), lines[para:]
    if is_merge:
        if not (MERGE_PR.match(first) or BORS.match(first)):
            return None
        if first.startswith("Merged PR"):
            return first.split(":", 1)[1].strip(), "\n".join(rest)
        while rest and not rest[0].strip():
            rest = rest[1:]
        if not rest:
            return None
        title = BORS_LINE.sub("", rest[0].strip()) if not first.startswith("Merge pull") else rest[0].strip()
        return title, "\n".join(rest[1:])
    return first, "\n".join(rest)


# ------------------------------------------------------------------ history

def git(gitdir, *a, input=None):
    r = subprocess.run(["git", "--git-dir", gitdir, *a], capture_output=True, input=input)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(a[:3])}: {r.stderr.decode(errors='replace')[-300:]}")
    return r.stdout.decode("utf-8", errors="replace")


def log(gitdir, commits=None, limit=4000):
    """(commit, parents, author, message, [(status, path)]) newest first, merges diffed against their first parent."""
    fmt = "--format=%x1e%H%x1f%P%x1f%an <%ae>%x1f%B%x1f"
    common = ["--no-renames", "--diff-merges=first-parent", "-z", fmt, "--name-status"]
    if commits is None:
        out = git(gitdir, "log", "--first-parent", "-n", str(limit), *common, "HEAD")
    else:
        out = git(gitdir, "log", "--no-walk=unsorted", "--stdin", *common, input="\n".join(commits).encode() + b"\n")
    for rec in out.split("\x1e")[1:]:
        commit, parents, author, msg, files = rec.split("\x1f", 4)
        items = files.lstrip("\0\n").split("\0")
        changes = [(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]
        yield commit, parents.split(), author, msg, changes


def candidate(entry, blobs):
    """The commit's (subject, body, parent, [target paths]) when it passes the filters, else None."""
    commit, parents, author, msg, changes = entry
    if not parents or BOT.search(author):
        return None
    told = message(msg, len(parents) > 1)
    if told is None:
        return None
    subject = clean_subject(told[0])
    if subject is None or words(subject) < 4 or BOT.search(told[0]):
        return None
    if len(changes) > MAX_FILES:
        return None
    parent = parents[0]
    sources = [p for st, p in changes if st[0] in "MAD" and not is_test(p) and not is_excluded(p) and is_source(p, blobs, parent if st[0] != "A" else commit)]
    if len(sources) > MAX_SOURCES:
        return None
    modified = set(p for st, p in changes if st[0] == "M")
    targets = [p for p in sources if p in modified]
    if not targets:
        return None
    docs = [p for _, p in changes if extension(p) in DOC_EXT or p.split("/")[0].lower() in ("docs", "doc")]
    if len(docs) >= 3 and len(docs) >= 2 * len(targets):  # a docs change that touched a line of code
        return None
    return subject, clean_body(told[1], told[0]), parent, targets


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def ranges(gitdir, parent, commit, paths):
    """{path: [(start, end)]} of the old side of each hunk, whitespace ignored, near hunks merged."""
    out = git(gitdir, "diff", "-U0", "-w", "--no-color", "--no-ext-diff", "--no-renames", parent, commit, "--", *paths)
    found, path, header = defaultdict(list), None, False
    for line in out.split("\n"):
        if line.startswith("diff --git "):
            path, header = None, True
        elif header and line.startswith("--- "):
            path = line[6:].rstrip("\t") if line.startswith("--- a/") else None
        elif line.startswith("@@") and path:
            header = False
            m = HUNK.match(line)
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            lo, hi = (max(start, 1), max(start, 1)) if count == 0 else (start, start + count - 1)
            spans = found[path]
            if spans and lo - spans[-1][1] <= 4:
                spans[-1] = (spans[-1][0], max(spans[-1][1], hi))
            else:
                spans.append((lo, hi))
    return {p: found[p] for p in paths if found.get(p)}


def rows(repo, language, gitdir, commit, cand):
    subject, body, parent, paths = cand
    spans = ranges(gitdir, parent, commit, paths)
    if not spans or sum(b - a + 1 for s in spans.values() for a, b in s) > MAX_LINES:
        return []
    targets = [{"path": p, "start_line": a, "end_line": b} for p in paths if p in spans for a, b in spans[p]]
    base = {"repo": repo, "language": language, "parent": parent, "commit": commit, "targets": targets}
    out = [dict(base, kind="issue", query=subject + ("\n\n" + body if body else ""))]
    if 4 <= words(subject) <= 12:
        out.append(dict(base, kind="question", query=subject))
    order = ["repo", "language", "kind", "query", "parent", "commit", "targets"]
    return [{k: r[k] for k in order} for r in out]


def evenly(items, n):
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


# ------------------------------------------------------------------ exclusions

def excluded_sets(mirrors, eval_dir):
    """{set name: {owner/name}} of every benchmark's repositories; fails when one cannot be read."""
    sets = {"swe-bench": set(SWEBENCH), "dev kit": set(DEV_KIT)}
    semble = os.path.join(mirrors, SEMBLE_MIRROR, "repo")
    entries = json.loads(git(semble, "show", f"{SEMBLE_COMMIT}:benchmarks/repos.json"))
    sets["semble"] = {re.sub(r"^https://github\.com/|\.git$|/$", "", e["url"]) for e in entries}
    if len(sets["semble"]) != 63:
        raise SystemExit(f"semble's benchmark lists {len(sets['semble'])} repositories, not 63")
    for name, pattern in (("swe-bench", "swebench/*.jsonl"), ("mulocbench", "mulocbench/dev.jsonl")):
        files = glob.glob(os.path.join(eval_dir, pattern))
        if not files:
            raise SystemExit(f"no {pattern} under {eval_dir}: the exclusion cannot be checked")
        for f in files:
            for line in open(f):
                if line.strip():
                    sets.setdefault(name, set()).add(json.loads(line)["repo"])  # the repository field, nothing else
    return sets


def refused(repos, sets):
    """[(repo, set name)] of each listed repository that a benchmark holds."""
    lowered = {name: {r.lower() for r in s} for name, s in sets.items()}
    out = []
    for repo in repos:
        for name, s in lowered.items():
            if repo.lower() in s:
                out.append((repo, name))
        if repo.split("/")[-1].lower() in BARE_NAMES:
            out.append((repo, "swe-bench / dev kit (by name)"))
    return out


def read_repos(path):
    repos = {}
    for line in open(path):
        line = line.rstrip()
        if line.strip() and not line.lstrip().startswith("#"):
            repo, language = line.split("\t")
            repos[repo.strip()] = language.strip()
    return repos


def check(repos, a):
    sets = excluded_sets(a.mirrors, a.eval_dir)
    bad = refused(repos, sets)
    sizes = ", ".join(f"{n} {len(s)}" for n, s in sorted(sets.items()))
    if bad:
        for repo, name in bad:
            print(f"refused: {repo} is in {name}", file=sys.stderr)
        raise SystemExit(f"{len(bad)} listed repositories are in a benchmark ({sizes})")
    print(f"exclusion check: {len(repos)} repositories, none in a benchmark ({sizes})", file=sys.stderr)


# ------------------------------------------------------------------ commands

def mine(a):
    t0 = time.time()
    languages = read_repos(a.repos_file) if a.repos_file else {}
    plan = {}
    if a.commits:
        for line in open(a.commits):
            if line.strip():
                repo, c = line.split()
                plan.setdefault(repo, []).append(c)
    else:
        plan = {repo: None for repo in languages}
    check(list(plan), a)
    os.makedirs(a.out, exist_ok=True)
    listed = open(os.path.join(a.out, "commits.txt"), "w")
    pairs = open(os.path.join(a.out, "pairs.jsonl"), "w")
    stats = {"repos": {}, "languages": defaultdict(Counter), "kinds": Counter()}
    for repo, commits in plan.items():
        gitdir = os.path.join(a.mirrors, repo.replace("/", "+"), "repo")
        if not os.path.isdir(gitdir):
            print(f"{repo}: not fetched ({gitdir})", file=sys.stderr); continue
        language = languages.get(repo, "?")
        t1 = time.time()
        blobs = Blobs(gitdir)
        history = list(log(gitdir, commits, a.max_commits))
        found = [(e[0], c) for e in history if (c := candidate(e, blobs)) is not None]
        chosen = found if commits is not None else evenly(found, a.per_repo)
        kinds = Counter()
        for commit, cand in chosen:
            got = rows(repo, language, gitdir, commit, cand)
            if not got:
                continue
            listed.write(f"{repo} {commit}\n")
            for r in got:
                pairs.write(json.dumps(r) + "\n"); kinds[r["kind"]] += 1
        blobs.close()
        listed.flush(); pairs.flush()
        stats["repos"][repo] = {"language": language, "history": len(history), "candidates": len(found),
                                "issue": kinds["issue"], "question": kinds["question"],
                                "seconds": round(time.time() - t1, 1)}
        stats["languages"][language].update(kinds); stats["kinds"].update(kinds)
        print(f"{repo} ({language}): {len(history)} commits, {len(found)} candidates, {kinds['issue']} issue-like, "
              f"{kinds['question']} question-like ({time.time() - t1:.0f}s)", file=sys.stderr)
    stats["seconds"] = round(time.time() - t0, 1)
    stats["languages"] = {k: dict(v) for k, v in sorted(stats["languages"].items())}
    json.dump(stats, open(os.path.join(a.out, "stats.json"), "w"), indent=1)
    print(f"{sum(stats['kinds'].values())} pairs ({dict(stats['kinds'])}) from {len(stats['repos'])} repositories "
          f"in {len(stats['languages'])} languages, {stats['seconds']:.0f}s", file=sys.stderr)


def sample(a):
    rows_ = [json.loads(l) for l in open(os.path.join(a.out, "pairs.jsonl"))]
    rows_ = [r for r in rows_ if r["kind"] == a.kind]
    for i, r in enumerate(random.Random(a.seed).sample(rows_, min(a.n, len(rows_)))):
        files = defaultdict(list)
        for t in r["targets"]:
            files[t["path"]].append(f"{t['start_line']}-{t['end_line']}")
        q = r["query"].split("\n")
        print(f"## {i + 1}. {r['repo']} {r['commit'][:10]} ({r['language']})")
        print("   " + "\n   ".join(q[:a.lines]) + (" […]" if len(q) > a.lines else ""))
        for p, s in files.items():
            print(f"   -> {p}: {', '.join(s[:8])}{' …' if len(s) > 8 else ''}")
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("check", "mine"):
        p = sub.add_parser(name)
        if name == "mine":
            p.add_argument("out")
            p.add_argument("--commits", default="")
            p.add_argument("--per-repo", type=int, default=400)
            p.add_argument("--max-commits", type=int, default=4000)
        p.add_argument("--repos-file", default=os.path.join(ROOT, "scripts", "ranking-repos.txt"))
        p.add_argument("--mirrors", default="/work/.mirror")
        p.add_argument("--eval-dir", default=os.path.join(ROOT, "..", "shared", "eval"))
    p = sub.add_parser("sample")
    p.add_argument("out"); p.add_argument("--kind", default="issue")
    p.add_argument("-n", type=int, default=50); p.add_argument("--seed", type=int, default=82)
    p.add_argument("--lines", type=int, default=6)
    a = ap.parse_args()
    if a.cmd == "check":
        check(list(read_repos(a.repos_file)), a)
    elif a.cmd == "mine":
        if not a.commits and not os.path.isfile(a.repos_file):
            raise SystemExit(f"no repositories file {a.repos_file}")
        if a.commits and not os.path.isfile(a.repos_file):
            a.repos_file = ""
        mine(a)
    else:
        sample(a)


if __name__ == "__main__":
    main()

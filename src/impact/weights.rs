//! Every number that orders what `git rag impact` lists, with its reason.
//! The walk's are set by reason. The tests' weights (`TEST_*` but
//! `TEST_IN_CHANGE`) are fitted by `scripts/fit-impact.py` (listwise, `reached`
//! fixed at 1) on 977 commits of 28 repositories in 11 languages that no
//! benchmark holds (`scripts/mine-impact.py`: each commit's code applied at
//! its parent, the tests it edited as labels). Leave one repository out the
//! fit ranks a labelled test first in 0.685 of the commits and in the first
//! five in 0.921 (MRR 0.788). SWE-bench is measured with them, never fitted
//! on (`docs/benchmarks.md`, "Change impact").

/// How much of a definition's impact passes along an edge of each kind.
/// A call runs the changed code; an override or implementation is
/// dispatched to in its place; a subclass inherits what it does not
/// override; an import names it but may use none of what changed.
pub const CALLS: f32 = 1.0;
pub const OVERRIDES: f32 = 0.9;
pub const IMPLEMENTS: f32 = 0.9;
pub const INHERITS: f32 = 0.8;
pub const IMPORTS: f32 = 0.6;

/// What each further hop keeps: a caller's caller runs the change only on
/// some of its paths.
pub const DEPTH_DECAY: f32 = 0.6;

/// How fast a definition's share falls with the number of its dependents
/// (`1 / (1 + FANOUT_SLOPE * ln n)`): one of a thousand callers of a
/// helper is less likely to be what a change breaks than the only caller.
pub const FANOUT_SLOPE: f32 = 0.5;

/// Dependents listed per definition and hop: non-test code, and test code
/// (read apart, so a much-called helper's tests are not cut off by its
/// callers). Past either, the answer says how many were left out.
pub const CODE_FANOUT: usize = 40;
pub const TEST_FANOUT: usize = 200;

/// Definitions of one name past which calls of it by name (through a
/// receiver of unknown type, `reach::callers_by_name`) are not listed:
/// each would carry one part in ten or less of a call's weight, and a
/// name that common (`get`, `run`, `close`) says little about the caller.
pub const BY_NAME_MAX_DEFINITIONS: usize = 8;

/// Definitions a hop expands, the best first: a change to a base utility
/// reaches most of a repository by depth 2, and what matters is the near part.
pub const FRONTIER: usize = 64;

/// A test's evidence, as shares of "it calls the changed code directly".
/// A test reached through the graph carries that path's score times this.
pub const TEST_REACHED: f32 = 1.0;
/// A test file changed in the same diff: the author already tied it to the change.
pub const TEST_IN_CHANGE: f32 = 1.5;
/// Named after the changed file (`test_sessions.py` for `sessions.py`): the
/// convention most projects follow for the tests of a module.
pub const TEST_NAMED_AFTER_FILE: f32 = 0.968;
/// Named after the changed file's folder (`test_mark.py` for `mark/structures.py`):
/// fitted near zero on the 28 repositories (their own names say more).
pub const TEST_NAMED_AFTER_FOLDER: f32 = 0.028;
/// Named after a changed definition or its class (`test_arguments.py` for `Argument.__init__`).
pub const TEST_NAMED_AFTER_DEFINITION: f32 = 0.745;
/// Named by what the change is for (its commit subjects, or `--message`),
/// as the share of the test file's name words the message says
/// (`test_hidden_input.py` for "Fix echo of hidden input"): the words a
/// reviewer reads before the diff. Fitted with the other weights fixed,
/// leave one repository out (every fold chose it): Acc@1 0.685 → 0.705 on
/// the 977 mined commits, their subjects the message.
pub const TEST_NAMED_BY_MESSAGE: f32 = 1.5;
/// Commits of a range whose subjects are its message, newest first: a long
/// branch's subjects would name every test.
pub const MESSAGE_COMMITS: usize = 20;
/// Words of a message shorter than this are not read as a test's name (`a`, `in`, `of`).
pub const MESSAGE_MIN_WORD: usize = 3;
/// Imports a changed file: it uses the module, maybe not what changed.
pub const TEST_IMPORTS: f32 = 0.377;
/// References a changed definition's name (resolved or not), times the
/// name's rarity (`1 / (1 + ln files)`): a test that says
/// `register_blueprint` is about it; one that says `get` may not be.
pub const TEST_NAMES: f32 = 0.889;
/// Changed in the same commits as a changed file, as the share of that
/// file's commits (with [`COCHANGE_PRIOR`] added below the line).
pub const TEST_COCHANGED: f32 = 1.663;
/// The same share with each of the file's commits weighed by its recency
/// (halved every [`COCHANGE_HALF_LIFE`] of the file's commits, newest first).
pub const TEST_COCHANGED_RECENTLY: f32 = 3.612;
/// A file's commits over which a co-change's weight halves.
pub const COCHANGE_HALF_LIFE: f32 = 10.0;
/// Pseudo-commits under a co-change share: a file changed twice, both
/// times with a test, is weaker evidence than one changed thirty times.
pub const COCHANGE_PRIOR: f32 = 3.0;

/// Ranked among test files by BM25 for the changed lines' identifiers
/// (`1 / rank`): the test that talks about what the change talks about.
pub const TEST_LEXICAL: f32 = 2.049;
/// Identifiers in that query at most, and chunks its window reads.
pub const LEXICAL_TERMS: usize = 48;
pub const LEXICAL_WINDOW: usize = 300;

/// Commits of history read for co-change, newest first along first parents.
pub const HISTORY_COMMITS: usize = 3000;
/// A commit that changes more files than this (a reformat, a rename
/// sweep, a vendored update) says nothing about which tests go with which code.
pub const HISTORY_MAX_FILES: usize = 40;

/// The chance that a listed test is a test file the change's own commit
/// edits: `sigmoid(INTERCEPT + LOG_SCORE·ln(1 + score) + LOG_RANK·ln(rank)
/// + SHARE_OF_TOP·score / first score)`. Fitted by
/// `scripts/calibrate-impact.py` (logistic regression, leave one
/// repository out for the reliability it prints) on the commits
/// `scripts/mine-impact.py` mines; `--write` rewrites these lines.
pub const TEST_PROBABILITY_INTERCEPT: f32 = -4.237;
pub const TEST_PROBABILITY_LOG_SCORE: f32 = 1.922;
pub const TEST_PROBABILITY_LOG_RANK: f32 = -0.679;
pub const TEST_PROBABILITY_SHARE_OF_TOP: f32 = 1.667;
/// A change of configuration alone (CI, build and tool files: no code):
/// added to the sum, and `…_LOG_SCORE` times `ln(1 + score)` too. Its tests
/// are found by what they share with the configuration's words, which says
/// less: on mined configuration-only commits the first test is the edited
/// one a third as often as for code. Fitted with the four above.
pub const TEST_PROBABILITY_CONFIGURATION_ONLY: f32 = 2.384;
pub const TEST_PROBABILITY_CONFIGURATION_ONLY_LOG_SCORE: f32 = -1.902;

/// How often a commit edits a test file, by what it changes: the share of
/// 16,803 code commits and 6,700 configuration-only commits in the histories
/// of the 28 mined repositories (`mine-impact.py --base-rates`). The
/// probabilities above are fitted on commits that edit a test; the `run`
/// tier asks the same chance of every commit of the kind, so a test of a
/// configuration-only change needs `RUN_TIER_PROBABILITY` times code's rate
/// over its own (about ten times as likely).
pub const COMMITS_EDITING_A_TEST_CODE: f32 = 0.384;
pub const COMMITS_EDITING_A_TEST_CONFIGURATION: f32 = 0.037;

/// The `run` tier holds the tests at least this likely; the rest are
/// `maybe`. The lowest threshold (in steps of 0.05) whose run tier holds at
/// most six tests on average on the mined commits, held out.
pub const RUN_TIER_PROBABILITY: f32 = 0.050;

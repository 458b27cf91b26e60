//! The context assembler: turns ranked candidates into a token-budgeted
//! Markdown context for an LLM, every piece cited as `path:start-end`.
//!
//! # Budget
//!
//! The budget is what the *whole* Markdown output may cost, counted with a
//! real tokenizer (cl100k_base), so the caller can paste it into a prompt
//! without surprises. The fixed parts (the `# Context for:` header and the
//! `## ...` heading of every section that has candidates) are paid first; the
//! rest (the *base*) is split into shares: Definitions 25%, Code 55%, File
//! context 15%, Patterns 5% (Patterns takes the rounding remainder).
//!
//! # Flow-over policy
//!
//! Sections are filled in the order Definitions → Code → File context →
//! Patterns (the output shows Code first: [`output_rank`]). What a section does not spend (and the cost of its heading, if
//! it ends up empty and the heading is not emitted) flows to the next
//! section. What Patterns leaves over is handed back to Code in a second
//! pass over the Code candidates that were not placed in the first pass
//! (only if Code already placed something: its heading is then paid), since
//! relevant code is the most useful thing to spend spare tokens on. After
//! that pass Code's `allowed` is what it could spend in total (first-pass
//! use plus the hand-back) and Patterns' `allowed` shrinks to what it used.
//! Whatever is still left is unused.
//!
//! # Pieces
//!
//! A piece costs exactly the tokens of the text emitted for it: its heading
//! line with the citation, the optional note line, the fenced block and the
//! blank line after it. The output is a plain concatenation of header,
//! section headings and pieces, each ending in a blank line before a `#`, so
//! counts are additive in practice; because BPE does not guarantee that, the
//! final Markdown is re-counted and the last pieces dropped until it fits.
//!
//! A line range is never shown twice: a candidate overlapping lines already
//! placed on the same path is cut to its uncovered part when that part is
//! one contiguous run (and not a useless remnant), else skipped. Candidates
//! are placed best first, so the higher-ranked piece keeps the lines. A
//! piece that does not fit its remaining share is cut to its first lines
//! (at least [`MIN_LINES`]); the citation always names exactly the lines
//! shown, and the heading says which part of the candidate they are.

pub mod pieces;

use std::collections::HashMap;
use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;

/// Where a piece goes in the context, in filling order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Definitions,
    Code,
    FileContext,
    Patterns,
}

impl Section {
    /// All sections, in filling order (the report's order too).
    pub const ALL: [Section; 4] = [Section::Definitions, Section::Code, Section::FileContext, Section::Patterns];

    /// Percent of the base budget this section gets before flow-over.
    fn percent(self) -> usize {
        match self {
            Section::Definitions => 25,
            Section::Code => 55,
            Section::FileContext => 15,
            Section::Patterns => 5,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Section::Definitions => "Definitions",
            Section::Code => "Relevant code",
            Section::FileContext => "File context",
            Section::Patterns => "Project patterns",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A candidate for the context; candidates of a section come in relevance
/// order (best first).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Piece {
    pub section: Section,
    /// Repo-relative path; for patterns, the path of the example.
    pub path: String,
    /// 1-based, inclusive.
    pub start_line: usize,
    /// 1-based, inclusive.
    pub end_line: usize,
    pub symbol: Option<String>,
    /// e.g. function, class, file, pattern.
    pub kind: Kind,
    /// e.g. python, javascript, typescript (for the code fence).
    pub language: Language,
    /// The text, whose first line is `start_line`.
    pub content: String,
    /// Optional one-line label, e.g. a pattern's "used 14 times in 6 files".
    pub note: Option<String>,
}

/// Options of [`assemble`].
#[derive(Debug, Clone, Copy)]
pub struct ContextOptions {
    /// Tokens (cl100k_base) the whole Markdown output may cost.
    pub budget: usize,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions { budget: 8000 }
    }
}

impl Piece {
    /// A piece of `section` showing `range` (first line, last line, text) of
    /// the hit's file, named like the hit.
    pub fn of_hit(section: Section, h: &crate::query::answer::Hit, range: (usize, usize, String), note: Option<String>) -> Piece {
        Piece {
            section,
            path: h.path.clone(),
            start_line: range.0,
            end_line: range.1,
            symbol: h.symbol.clone(),
            kind: h.kind,
            language: h.language,
            content: range.2,
            note,
        }
    }
}

/// The assembled context.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Context {
    pub query: String,
    pub budget: usize,
    /// Tokens of `markdown`; never more than `budget`.
    pub tokens: usize,
    /// One report per section, in output order (all four, even if empty).
    pub sections: Vec<SectionReport>,
    /// Chosen pieces in output order.
    pub pieces: Vec<Placed>,
    pub markdown: String,
}

/// What a section was allowed to spend (its share plus what flowed in) and
/// what its pieces cost. Headings are paid outside the shares.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SectionReport {
    pub section: Section,
    pub allowed: usize,
    pub used: usize,
}

/// A piece as placed in the context.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Placed {
    pub section: Section,
    /// `path:start-end`, exactly the lines in `content`.
    pub citation: String,
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub symbol: Option<String>,
    pub kind: Kind,
    /// Tokens of the text emitted for this piece (heading, note, fence,
    /// content and the blank line after it).
    pub tokens: usize,
    /// The lines shown are a strict part of the candidate's range (cut to
    /// fit the budget or to avoid repeating lines already shown).
    pub truncated: bool,
    /// The lines shown, joined with `\n` (no trailing newline).
    pub content: String,
}

/// The fewest lines worth showing of a cut piece: fewer are rarely useful
/// (a signature without its body, a lone closing brace) and cost a heading.
pub const MIN_LINES: usize = 3;

/// Tokens of `text` in cl100k_base (the GPT-4 / GPT-3.5 encoding).
///
/// The BPE is built once and shared. Should it ever fail to load (it is
/// compiled in, so it should not), the byte length is returned: every
/// cl100k token covers at least one byte, so this over-estimates and the
/// budget still holds.
pub fn count_tokens(text: &str) -> usize {
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    match BPE.get_or_init(|| tiktoken_rs::cl100k_base().ok()) {
        Some(bpe) => bpe.encode_ordinary(text).len(),
        None => text.len(),
    }
}

/// Assembles the context for `query` from `candidates` within `opts.budget`
/// tokens. Never panics on odd input and never exceeds the budget (for a
/// budget too small even for the header the Markdown is empty).
pub fn assemble(query: &str, candidates: Vec<Piece>, opts: &ContextOptions) -> Context {
    let budget = opts.budget;
    let header = render_header(query);
    let header_tokens = count_tokens(&header);

    let mut reports: Vec<SectionReport> = Section::ALL.iter().map(|&section| SectionReport { section, allowed: 0, used: 0 }).collect();
    let empty =
        |reports: Vec<SectionReport>| Context { query: query.to_string(), budget, tokens: 0, sections: reports, pieces: Vec::new(), markdown: String::new() };
    if header_tokens > budget {
        return empty(reports);
    }

    // Candidates per section, clamped, keeping their relevance rank.
    let mut by_section: [Vec<Cand>; 4] = Default::default();
    for piece in candidates {
        let idx = piece.section.index();
        let rank = by_section[idx].len();
        if let Some(c) = Cand::new(piece, rank) {
            by_section[idx].push(c);
        }
    }
    if by_section.iter().all(|v| v.is_empty()) {
        return finish(query, budget, &header, Vec::new(), reports, NOTHING_FOUND);
    }

    // Pay the headings of sections that have candidates, in order, as far as
    // the budget goes; a section whose heading cannot be paid gets no pieces.
    let (base, heading_cost, mut heading_paid) = pay_headings(&by_section, budget - header_tokens);
    let shares = shares(base);

    // First pass, in section order, flowing unused tokens forward.
    let mut placer = Placer::default();
    let mut placed_rank: [Vec<bool>; 4] = Default::default();
    let mut carry = 0usize;
    for s in Section::ALL {
        let i = s.index();
        let allowed = shares[i] + carry;
        let mut remaining = allowed;
        placed_rank[i] = vec![false; by_section[i].len()];
        let mut refund = 0;
        if heading_paid[i] {
            for c in &by_section[i] {
                if let Some(p) = placer.place(c, remaining) {
                    remaining -= p.placed.tokens;
                    placed_rank[i][c.rank] = true;
                    placer.placed.push(p);
                }
            }
            if !placed_rank[i].iter().any(|&b| b) {
                // The heading will not be emitted: its tokens flow on too.
                heading_paid[i] = false;
                refund = heading_cost[i];
            }
        }
        reports[i].allowed = allowed;
        reports[i].used = allowed - remaining;
        carry = remaining + refund;
    }

    // Second pass: Patterns hands what is left back to Code.
    let code = Section::Code.index();
    let pat = Section::Patterns.index();
    if heading_paid[code] && carry > 0 && placed_rank[code].iter().any(|b| !b) {
        reports[pat].allowed = reports[pat].used;
        let mut remaining = carry;
        for c in &by_section[code] {
            if placed_rank[code][c.rank] {
                continue;
            }
            if let Some(p) = placer.place(c, remaining) {
                remaining -= p.placed.tokens;
                placer.placed.push(p);
            }
        }
        reports[code].allowed = reports[code].used + carry;
        reports[code].used += carry - remaining;
    }

    finish(query, budget, &header, placer.placed, reports, NOTHING_FIT)
}

/// Pays the headings of sections that have candidates, in order, as far as
/// `base` goes; a section whose heading cannot be paid gets no pieces.
/// Returns what is left, each heading's cost, and which were paid.
fn pay_headings(by_section: &[Vec<Cand>; 4], mut base: usize) -> (usize, [usize; 4], [bool; 4]) {
    let mut heading_cost = [0usize; 4];
    let mut heading_paid = [false; 4];
    for s in Section::ALL {
        if by_section[s.index()].is_empty() {
            continue;
        }
        let cost = count_tokens(&render_section_heading(s));
        heading_cost[s.index()] = cost;
        if cost <= base {
            base -= cost;
            heading_paid[s.index()] = true;
        }
    }
    (base, heading_cost, heading_paid)
}

/// The base budget split by the sections' percentages; Patterns also takes
/// the rounding remainder, so the shares add up to `base`.
fn shares(base: usize) -> [usize; 4] {
    let mut shares = [0usize; 4];
    for s in [Section::Definitions, Section::Code, Section::FileContext] {
        // floor(base * p / 100) without overflow for any budget.
        shares[s.index()] = base / 100 * s.percent() + base % 100 * s.percent() / 100;
    }
    shares[Section::Patterns.index()] = base - shares[..3].iter().sum::<usize>();
    shares
}

const NOTHING_FOUND: &str = "_Nothing relevant was found for this query._\n";
const NOTHING_FIT: &str = "_No candidate fit in the token budget._\n";

/// Orders the pieces, renders, and drops last pieces until the re-counted
/// Markdown fits (BPE counts are not strictly additive). With no pieces,
/// `fallback` is added after the header when it fits.
fn finish(query: &str, budget: usize, header: &str, placed: Vec<Internal>, mut reports: Vec<SectionReport>, fallback: &str) -> Context {
    let mut ordered = output_order(placed);
    let (markdown, tokens) = loop {
        let md = render(header, &ordered);
        let md = if ordered.is_empty() { format!("{md}{fallback}") } else { md };
        let t = count_tokens(&md);
        if t <= budget {
            break (md, t);
        }
        if ordered.pop().is_none() {
            // Only the header and fallback are left: try the header alone.
            let t = count_tokens(header);
            if t <= budget {
                break (header.to_string(), t);
            }
            break (String::new(), 0);
        }
    };
    for r in &mut reports {
        r.used = ordered.iter().filter(|p| p.placed.section == r.section).map(|p| p.placed.tokens).sum();
    }
    Context { query: query.to_string(), budget, tokens, sections: reports, pieces: ordered.into_iter().map(|p| p.placed).collect(), markdown }
}

/// Where a section's pieces go in the output: the relevant code first (the
/// best-ranked answer is what a reader or a model should meet first), then
/// the definitions it relies on, file context and patterns. (Sections are
/// filled in [`Section::ALL`]'s order.)
fn output_rank(s: Section) -> usize {
    match s {
        Section::Code => 0,
        Section::Definitions => 1,
        Section::FileContext => 2,
        Section::Patterns => 3,
    }
}

/// Output order: sections by [`output_rank`]; within a section relevance
/// order, except that in Code the pieces of one file are grouped at the
/// position of that file's best piece: the best piece first, then the
/// file's others in line order.
fn output_order(mut placed: Vec<Internal>) -> Vec<Internal> {
    let mut best: HashMap<String, usize> = HashMap::new();
    for p in placed.iter().filter(|p| p.placed.section == Section::Code) {
        let e = best.entry(p.placed.path.clone()).or_insert(p.rank);
        *e = (*e).min(p.rank);
    }
    placed.sort_by(|a, b| {
        let sa = a.placed.section;
        let sb = b.placed.section;
        output_rank(sa).cmp(&output_rank(sb)).then_with(|| {
            if sa == Section::Code {
                let ba = best.get(&a.placed.path).copied().unwrap_or(a.rank);
                let bb = best.get(&b.placed.path).copied().unwrap_or(b.rank);
                ba.cmp(&bb)
                    .then_with(|| a.placed.path.cmp(&b.placed.path))
                    .then_with(|| (a.rank != ba).cmp(&(b.rank != bb)))
                    .then_with(|| a.placed.start_line.cmp(&b.placed.start_line))
            } else {
                a.rank.cmp(&b.rank)
            }
        })
    });
    placed
}

fn render(header: &str, ordered: &[Internal]) -> String {
    let mut md = String::from(header);
    let mut current: Option<Section> = None;
    for p in ordered {
        if current != Some(p.placed.section) {
            current = Some(p.placed.section);
            md.push_str(&render_section_heading(p.placed.section));
        }
        md.push_str(&p.text);
    }
    md
}

fn render_header(query: &str) -> String {
    format!("# Context for: {}\n\n", one_line(query))
}

fn render_section_heading(s: Section) -> String {
    format!("## {}\n\n", s.title())
}

/// A candidate with its range clamped to its content.
struct Cand {
    piece: Piece,
    rank: usize,
    start: usize,
    end: usize,
    lines: Vec<String>,
}

impl Cand {
    /// Clamps the range: start at least 1; an end before the start is taken
    /// from the content; the range never claims more lines than the content
    /// has, and extra content lines beyond the range are dropped. `None` for
    /// empty content.
    fn new(piece: Piece, rank: usize) -> Option<Cand> {
        let all: Vec<&str> = piece.content.lines().collect();
        if all.is_empty() {
            return None;
        }
        let start = piece.start_line.max(1);
        let by_content = start.saturating_add(all.len() - 1);
        let end = if piece.end_line < start { by_content } else { piece.end_line.min(by_content) };
        let n = end - start + 1;
        let lines = all[..n.min(all.len())].iter().map(|l| l.to_string()).collect();
        Some(Cand { piece, rank, start, end, lines })
    }
}

/// A placed piece with what ordering and rendering need.
struct Internal {
    rank: usize,
    text: String,
    placed: Placed,
}

/// Places pieces, remembering which lines of which path are shown.
#[derive(Default)]
struct Placer {
    ranges: HashMap<String, Vec<(usize, usize)>>,
    placed: Vec<Internal>,
}

impl Placer {
    /// The piece for `c` (cut to its uncovered lines and, if needed, to its
    /// first lines) costing at most `remaining`, or `None`. Records its lines.
    fn place(&mut self, c: &Cand, remaining: usize) -> Option<Internal> {
        let taken = self.ranges.get(&c.piece.path).map(Vec::as_slice).unwrap_or(&[]);
        let (s, e) = uncovered_run(taken, c.start, c.end)?;
        let n = e - s + 1;
        if n < (c.end - c.start + 1).min(MIN_LINES) {
            return None; // a remnant too small to be worth a heading
        }
        let lines = &c.lines[s - c.start..=e - c.start];
        let fits = |k: usize| {
            let text = render_piece(c, s, &lines[..k]);
            let t = count_tokens(&text);
            (t <= remaining).then_some((text, t))
        };
        let (k, text, tokens) = if let Some((text, t)) = fits(n) {
            (n, text, t)
        } else if n > MIN_LINES {
            // Largest k in [MIN_LINES, n) that fits (cost grows with k).
            fits(MIN_LINES)?;
            let (mut lo, mut hi) = (MIN_LINES, n - 1);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if fits(mid).is_some() {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            let (text, t) = fits(lo)?;
            (lo, text, t)
        } else {
            return None;
        };
        let end = s + (k - 1); // k >= 1, and s + (n - 1) = e did not overflow
        self.ranges.entry(c.piece.path.clone()).or_default().push((s, end));
        let p = &c.piece;
        Some(Internal {
            rank: c.rank,
            text,
            placed: Placed {
                section: p.section,
                citation: citation(&p.path, s, end),
                path: p.path.clone(),
                start_line: s,
                end_line: end,
                symbol: p.symbol.clone(),
                kind: p.kind,
                tokens,
                truncated: s != c.start || end != c.end,
                content: lines[..k].join("\n"),
            },
        })
    }
}

/// The part of `start..=end` not covered by `taken` (disjoint ranges), if it
/// is one non-empty contiguous run.
fn uncovered_run(taken: &[(usize, usize)], start: usize, end: usize) -> Option<(usize, usize)> {
    let mut over: Vec<(usize, usize)> = taken.iter().copied().filter(|&(a, b)| a <= end && b >= start).collect();
    over.sort_unstable();
    let mut gaps = Vec::new();
    let mut cur = start; // first line not yet known to be covered
    let mut done = false;
    for (a, b) in over {
        if a > cur {
            gaps.push((cur, a - 1));
        }
        if b >= end {
            done = true;
            break;
        }
        cur = cur.max(b + 1);
    }
    if !done && cur <= end {
        gaps.push((cur, end));
    }
    match gaps.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

fn citation(path: &str, start: usize, end: usize) -> String {
    format!("{}:{start}-{end}", one_line(path))
}

/// The exact text emitted for a piece showing `lines` from line `s`.
fn render_piece(c: &Cand, s: usize, lines: &[String]) -> String {
    let p = &c.piece;
    let end = s.saturating_add(lines.len().saturating_sub(1));
    let mut out = format!("### {}", code_span(&citation(&p.path, s, end)));
    if let Some(sym) = p.symbol.as_deref().map(one_line).filter(|s| !s.is_empty()) {
        out.push_str(" — ");
        out.push_str(&code_span(&sym));
    }
    let kind = p.kind.as_str();
    let partial = s != c.start || end != c.end;
    match (kind.is_empty(), partial) {
        (false, false) => out.push_str(&format!(" ({kind})")),
        (false, true) => out.push_str(&format!(" ({kind}; lines {s}-{end} of {}-{})", c.start, c.end)),
        (true, true) => out.push_str(&format!(" (lines {s}-{end} of {}-{})", c.start, c.end)),
        (true, false) => {}
    }
    out.push('\n');
    if let Some(note) = p.note.as_deref().map(one_line).filter(|n| !n.is_empty()) {
        out.push_str("> ");
        out.push_str(&note);
        out.push('\n');
    }
    // A fence longer than any backtick run inside, so content cannot close it.
    let run = lines.iter().map(|l| longest_run(l, '`')).max().unwrap_or(0);
    let fence = "`".repeat(run.max(2) + 1);
    let lang = p.language.name();
    out.push_str(&fence);
    out.push_str(lang);
    out.push('\n');
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&fence);
    out.push_str("\n\n");
    out
}

/// `text` on one line: line breaks and other control characters become spaces.
fn one_line(text: &str) -> String {
    let s: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    s.trim().to_string()
}

/// Inline code that survives backticks in `text`.
fn code_span(text: &str) -> String {
    let run = longest_run(text, '`');
    if run == 0 {
        format!("`{text}`")
    } else {
        let ticks = "`".repeat(run + 1);
        format!("{ticks} {text} {ticks}")
    }
}

fn longest_run(text: &str, ch: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for c in text.chars() {
        if c == ch {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn piece(section: Section, path: &str, start: usize, end: usize, content: &str) -> Piece {
        Piece {
            section,
            path: path.to_string(),
            start_line: start,
            end_line: end,
            symbol: None,
            kind: Kind::Function,
            language: Language::Python,
            content: content.to_string(),
            note: None,
        }
    }

    /// `n` distinct lines of roughly `words` words each, numbered from `from`.
    fn lines(from: usize, n: usize, words: usize) -> String {
        (from..from + n)
            .map(|i| {
                let body: Vec<String> = (0..words).map(|w| format!("v{i}_{w}")).collect();
                format!("x{i} = {}", body.join(" + "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn code(path: &str, start: usize, n: usize) -> Piece {
        piece(Section::Code, path, start, start + n - 1, &lines(start, n, 4))
    }

    fn report(ctx: &Context, s: Section) -> &SectionReport {
        &ctx.sections[s.index()]
    }

    fn assert_invariants(ctx: &Context) {
        assert!(ctx.tokens <= ctx.budget, "{} > {}", ctx.tokens, ctx.budget);
        assert_eq!(ctx.tokens, count_tokens(&ctx.markdown));
        for r in &ctx.sections {
            assert!(r.used <= r.allowed, "{r:?}");
        }
        for (i, a) in ctx.pieces.iter().enumerate() {
            assert_eq!(a.citation, format!("{}:{}-{}", a.path, a.start_line, a.end_line));
            assert!(ctx.markdown.contains(&format!("`{}`", a.citation)), "{}", a.citation);
            assert!(a.start_line >= 1 && a.start_line <= a.end_line);
            assert_eq!(a.content.split('\n').count(), a.end_line - a.start_line + 1);
            for b in &ctx.pieces[i + 1..] {
                if a.path == b.path {
                    assert!(a.end_line < b.start_line || b.end_line < a.start_line, "{} overlaps {}", a.citation, b.citation);
                }
            }
        }
    }

    #[test]
    fn counts_with_cl100k() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        assert!(count_tokens("fn main() { println!(\"hi\"); }") > 5);
    }

    #[test]
    fn default_budget_is_8000() {
        assert_eq!(ContextOptions::default().budget, 8000);
    }

    #[test]
    fn empty_candidates_say_nothing_found() {
        let ctx = assemble("where is auth", Vec::new(), &ContextOptions::default());
        assert!(ctx.markdown.starts_with("# Context for: where is auth\n"));
        assert!(ctx.markdown.contains("Nothing relevant was found"));
        assert!(ctx.pieces.is_empty());
        assert_invariants(&ctx);
        // Pieces with empty content count as no candidates.
        let ctx = assemble("q", vec![piece(Section::Code, "a.py", 1, 3, "")], &ContextOptions::default());
        assert!(ctx.markdown.contains("Nothing relevant was found"));
    }

    #[test]
    fn tiny_budgets_never_overflow() {
        let cands = vec![code("a.py", 1, 20), code("b.py", 5, 10)];
        for budget in [0, 1, 2, 5, 8, 10, 15, 20, 30, 50] {
            let ctx = assemble("find the session code", cands.clone(), &ContextOptions { budget });
            assert_invariants(&ctx);
            let empty = assemble("find the session code", Vec::new(), &ContextOptions { budget });
            assert_invariants(&empty);
        }
        let ctx = assemble("q", cands, &ContextOptions { budget: 0 });
        assert_eq!(ctx.markdown, "");
        assert_eq!(ctx.tokens, 0);
    }

    fn fixed_cost(query: &str, sections: &[Section]) -> usize {
        count_tokens(&render_header(query)) + sections.iter().map(|&s| count_tokens(&render_section_heading(s))).sum::<usize>()
    }

    fn many(section: Section, prefix: &str, count: usize, n: usize) -> Vec<Piece> {
        (0..count)
            .map(|f| {
                let mut p = code(&format!("{prefix}{f}.py"), 1, n);
                p.section = section;
                p
            })
            .collect()
    }

    #[test]
    fn shares_split_the_base() {
        assert_eq!(shares(1000), [250, 550, 150, 50]);
        assert_eq!(shares(7), [1, 3, 1, 2]);
        assert_eq!(shares(0), [0; 4]);
        let big = shares(usize::MAX);
        assert_eq!(big.iter().fold(0usize, |a, &b| a.saturating_add(b)), usize::MAX);
    }

    #[test]
    fn shares_are_taken_after_header_and_headings() {
        // Plenty of candidates everywhere, so every section spends its share.
        let mut cands = Vec::new();
        for s in Section::ALL {
            cands.extend(many(s, &format!("{s:?}"), 30, 12));
        }
        let budget = 8000;
        let ctx = assemble("q", cands, &ContextOptions { budget });
        assert_invariants(&ctx);
        let base = budget - fixed_cost("q", &Section::ALL);
        let defs = report(&ctx, Section::Definitions);
        assert_eq!(defs.allowed, base * 25 / 100);
        let code = report(&ctx, Section::Code);
        // Code's share plus what Definitions did not spend (and maybe more
        // from the second pass).
        assert!(code.allowed >= base * 55 / 100 + (defs.allowed - defs.used));
        // Every section used nearly all of its allowance (cut by whole lines).
        for r in &ctx.sections {
            assert!(r.used > 0 && r.allowed - r.used < 120, "{r:?}");
        }
        let total: usize = ctx.sections.iter().map(|r| r.used).sum();
        assert!(total > base - 150, "{total} of {base}");
        let md = &ctx.markdown;
        assert!(md.find("## Relevant code") < md.find("## Definitions"), "the code first");
        assert!(md.find("## Relevant code") < md.find("## File context"));
        assert!(md.find("## File context") < md.find("## Project patterns"));
    }

    #[test]
    fn unused_share_flows_to_the_next_section() {
        // No definitions; three small code pieces that all fit (so no second
        // pass); many file-context and pattern pieces.
        let mut cands = many(Section::Code, "c", 3, 3);
        cands.extend(many(Section::FileContext, "f", 40, 12));
        cands.extend(many(Section::Patterns, "p", 40, 12));
        let budget = 6000;
        let ctx = assemble("q", cands, &ContextOptions { budget });
        assert_invariants(&ctx);
        let base = budget - fixed_cost("q", &[Section::Code, Section::FileContext, Section::Patterns]);
        let [d, c, f, p] = shares(base);
        let defs = report(&ctx, Section::Definitions);
        let code = report(&ctx, Section::Code);
        let fc = report(&ctx, Section::FileContext);
        let pat = report(&ctx, Section::Patterns);
        assert_eq!((defs.allowed, defs.used), (d, 0));
        assert_eq!(code.allowed, d + c);
        assert_eq!(ctx.pieces.iter().filter(|x| x.section == Section::Code).count(), 3);
        assert_eq!(fc.allowed, f + code.allowed - code.used);
        assert_eq!(pat.allowed, p + fc.allowed - fc.used);
        assert!(fc.used > f, "file context used flowed-over tokens: {fc:?}");
        assert!(!ctx.markdown.contains("## Definitions"));
    }

    #[test]
    fn an_empty_section_refunds_its_heading() {
        // The only Definitions candidate is too wide to place: its heading is
        // not emitted and its cost flows on to Code.
        let wide = piece(Section::Definitions, "w.py", 1, 2, &lines(1, 2, 2000));
        let mut cands = vec![wide];
        cands.extend(many(Section::Code, "c", 3, 3));
        let budget = 3000;
        let ctx = assemble("q", cands, &ContextOptions { budget });
        assert_invariants(&ctx);
        let base = budget - fixed_cost("q", &[Section::Definitions, Section::Code]);
        let [d, c, ..] = shares(base);
        let heading = count_tokens(&render_section_heading(Section::Definitions));
        assert_eq!(report(&ctx, Section::Code).allowed, d + heading + c);
        assert!(!ctx.markdown.contains("## Definitions"));
    }

    #[test]
    fn code_gets_the_leftover_in_a_second_pass() {
        // Code alone: the first pass gives it 80% of the base (its share and
        // Definitions'); what File context and Patterns leave comes back.
        let budget = 4000;
        let ctx = assemble("q", many(Section::Code, "f", 60, 12), &ContextOptions { budget });
        assert_invariants(&ctx);
        let base = budget - fixed_cost("q", &[Section::Code]);
        let code = report(&ctx, Section::Code);
        assert!(code.allowed >= base * 80 / 100, "{code:?}");
        assert!(code.used > base * 95 / 100, "{code:?} base {base}");
        assert_eq!(report(&ctx, Section::Patterns).allowed, 0);
        assert_eq!(report(&ctx, Section::Patterns).used, 0);
    }

    #[test]
    fn second_pass_places_what_the_first_skipped() {
        // Eight 3-line pieces (too short to cut) needing ~85% of the base:
        // seven fit the first pass, the eighth only the second.
        let cands = many(Section::Code, "p", 8, 3);
        let c0 = Cand::new(cands[0].clone(), 0).unwrap();
        let one = count_tokens(&render_piece(&c0, 1, &c0.lines));
        let budget = fixed_cost("q", &[Section::Code]) + one * 8 * 100 / 85;
        let ctx = assemble("q", cands, &ContextOptions { budget });
        assert_invariants(&ctx);
        assert_eq!(ctx.pieces.len(), 8, "{:?}", ctx.sections);
        assert!(ctx.pieces.iter().all(|p| !p.truncated));
        // Ordered by relevance (one piece per file).
        assert_eq!(ctx.pieces[7].path, "p7.py");
    }

    #[test]
    fn overlapping_pieces_are_cut_or_skipped() {
        let cands = vec![
            piece(Section::Definitions, "a.py", 10, 20, &lines(10, 11, 2)),
            // Overlaps 15..20: cut to 21..30.
            piece(Section::Code, "a.py", 15, 30, &lines(15, 16, 2)),
            // Inside what is shown: skipped.
            piece(Section::Code, "a.py", 12, 18, &lines(12, 7, 2)),
            // Would leave two runs (1..9 and 31..40): skipped.
            piece(Section::Code, "a.py", 1, 40, &lines(1, 40, 2)),
            // Same lines, other path: kept.
            piece(Section::Code, "b.py", 10, 20, &lines(10, 11, 2)),
            // Would leave only line 31, a useless remnant: skipped.
            piece(Section::FileContext, "a.py", 25, 31, &lines(25, 7, 2)),
        ];
        let ctx = assemble("q", cands, &ContextOptions::default());
        assert_invariants(&ctx);
        let cites: Vec<&str> = ctx.pieces.iter().map(|p| p.citation.as_str()).collect();
        // Placed Definitions first (it keeps its lines); shown after the code.
        assert_eq!(cites, ["a.py:21-30", "b.py:10-20", "a.py:10-20"]);
        let cut = &ctx.pieces[0];
        assert!(cut.truncated);
        assert!(cut.content.starts_with("x21 = ") && cut.content.ends_with("v30_1"));
        assert!(ctx.markdown.contains("lines 21-30 of 15-30"));
    }

    #[test]
    fn pieces_that_do_not_fit_are_cut_by_whole_lines() {
        let big = code("big.py", 100, 200);
        let small = code("small.py", 1, 2);
        let budget = 400;
        let ctx = assemble("q", vec![big, small], &ContextOptions { budget });
        assert_invariants(&ctx);
        let p = &ctx.pieces[0];
        assert!(p.truncated);
        assert_eq!(p.start_line, 100);
        assert!(p.end_line >= 102 && p.end_line < 299, "{}", p.citation);
        // The shown lines are exactly the cited ones, nothing else in the fence.
        let shown: Vec<&str> = p.content.split('\n').collect();
        assert!(shown[0].starts_with("x100 = "));
        assert!(shown.last().unwrap().starts_with(&format!("x{} = ", p.end_line)));
        assert!(!ctx.markdown.contains('…'));
        assert!(ctx.markdown.contains(&format!("```python\n{}\n```\n", p.content)));
    }

    #[test]
    fn too_small_to_cut_is_skipped_and_the_next_tried() {
        // A two-line piece far too long for the share is skipped (no cut
        // below MIN_LINES); the small piece after it is placed.
        let wide = piece(Section::Code, "wide.py", 1, 2, &lines(1, 2, 400));
        let small = code("small.py", 1, 3);
        let ctx = assemble("q", vec![wide, small], &ContextOptions { budget: 500 });
        assert_invariants(&ctx);
        let cites: Vec<&str> = ctx.pieces.iter().map(|p| p.citation.as_str()).collect();
        assert_eq!(cites, ["small.py:1-3"]);
        // A long piece whose first MIN_LINES do not fit is skipped too.
        let long_wide = piece(Section::Code, "lw.py", 1, 10, &lines(1, 10, 100));
        let ctx = assemble("q", vec![long_wide], &ContextOptions { budget: 300 });
        assert_invariants(&ctx);
        assert!(ctx.pieces.is_empty());
        assert!(ctx.markdown.contains("No candidate fit"));
    }

    #[test]
    fn code_comes_first_each_file_at_its_best_piece_then_in_line_order() {
        let cands = vec![code("a.py", 50, 5), code("b.py", 1, 5), code("a.py", 1, 5), code("c.py", 1, 5), code("b.py", 20, 5)];
        let mut defs = code("z.py", 1, 3);
        defs.section = Section::Definitions;
        let mut all = vec![defs];
        all.extend(cands);
        let ctx = assemble("q", all, &ContextOptions::default());
        assert_invariants(&ctx);
        let cites: Vec<&str> = ctx.pieces.iter().map(|p| p.citation.as_str()).collect();
        assert_eq!(cites, ["a.py:50-54", "a.py:1-5", "b.py:1-5", "b.py:20-24", "c.py:1-5", "z.py:1-3"]);
    }

    #[test]
    fn markdown_shape() {
        let mut def = piece(Section::Definitions, "src/a.py", 10, 12, "class Session:\n    def send(self):\n        pass");
        def.symbol = Some("Session.send".into());
        def.kind = Kind::Method;
        let mut pat = piece(Section::Patterns, "src/b.py", 3, 4, "@app.route('/x')\ndef x(): ...");
        pat.kind = Kind::Pattern;
        pat.note = Some("used 14 times\nin 6 files".into());
        let ctx = assemble("how\nare sessions sent", vec![def, pat], &ContextOptions::default());
        assert_invariants(&ctx);
        let expected = "# Context for: how are sessions sent\n\n\
             ## Definitions\n\n\
             ### `src/a.py:10-12` — `Session.send` (method)\n\
             ```python\nclass Session:\n    def send(self):\n        pass\n```\n\n\
             ## Project patterns\n\n\
             ### `src/b.py:3-4` (pattern)\n\
             > used 14 times in 6 files\n\
             ```python\n@app.route('/x')\ndef x(): ...\n```\n\n";
        assert_eq!(ctx.markdown, expected);
        assert!(!ctx.markdown.contains("## Relevant code"));
        let json = serde_json::to_value(&ctx).unwrap();
        assert_eq!(json["pieces"][1]["section"], "patterns");
        assert_eq!(json["sections"][2]["section"], "file_context");
    }

    #[test]
    fn backticks_in_content_get_a_longer_fence() {
        let p = piece(Section::Code, "README.md", 1, 3, "intro\n```sh\nmake\n```");
        let ctx = assemble("q", vec![p], &ContextOptions::default());
        assert_invariants(&ctx);
        assert!(ctx.markdown.contains("````python\nintro\n```sh\nmake\n````\n"), "{}", ctx.markdown);
        // The fourth content line is beyond the range and is dropped.
        assert_eq!(ctx.pieces[0].content, "intro\n```sh\nmake");
    }

    #[test]
    fn invalid_ranges_are_clamped() {
        let cands = vec![
            // end before start: the range comes from the content.
            piece(Section::Code, "a.py", 10, 3, "l10\nl11\nl12"),
            // fewer content lines than the range.
            piece(Section::Code, "b.py", 1, 100, "l1\nl2"),
            // start 0.
            piece(Section::Code, "c.py", 0, 2, "l1\nl2\nl3"),
            // huge start.
            piece(Section::Code, "d.py", usize::MAX - 1, usize::MAX, "x\ny\nz"),
            piece(Section::Code, "e.py", usize::MAX, 0, "x\ny"),
            // empty content, CRLF content.
            piece(Section::Code, "f.py", 1, 5, ""),
            piece(Section::Code, "g.py", 1, 2, "a\r\nb\r\n"),
        ];
        let ctx = assemble("q", cands, &ContextOptions::default());
        assert_invariants(&ctx);
        let cites: Vec<&str> = ctx.pieces.iter().map(|p| p.citation.as_str()).collect();
        let max = usize::MAX;
        assert_eq!(
            cites,
            [
                "a.py:10-12".to_string(),
                "b.py:1-2".to_string(),
                "c.py:1-2".to_string(),
                format!("d.py:{}-{}", max - 1, max),
                format!("e.py:{max}-{max}"),
                "g.py:1-2".to_string(),
            ]
        );
        assert_eq!(ctx.pieces[5].content, "a\nb");
    }

    #[test]
    fn final_recount_drops_last_pieces_until_it_fits() {
        // Hand-made placed pieces, as if the per-piece counts had been too
        // optimistic: the re-count must drop pieces from the end.
        let header = render_header("q");
        let mk = |rank: usize, section: Section, path: &str| {
            let c = Cand::new(piece(section, path, 1, 3, &lines(1, 3, 4)), rank).unwrap();
            let text = render_piece(&c, 1, &c.lines);
            Internal {
                rank,
                placed: Placed {
                    section,
                    citation: citation(path, 1, 3),
                    path: path.into(),
                    start_line: 1,
                    end_line: 3,
                    symbol: None,
                    kind: Kind::Function,
                    tokens: 1, // a lie the re-count catches
                    truncated: false,
                    content: c.lines.join("\n"),
                },
                text,
            }
        };
        let placed = vec![mk(0, Section::Code, "a.py"), mk(1, Section::Code, "b.py"), mk(0, Section::Patterns, "p.py")];
        let full = render(&header, &output_order(placed));
        let placed = vec![mk(0, Section::Code, "a.py"), mk(1, Section::Code, "b.py"), mk(0, Section::Patterns, "p.py")];
        let budget = count_tokens(&full) - 1;
        let reports = Section::ALL.iter().map(|&section| SectionReport { section, allowed: budget, used: 0 }).collect();
        let ctx = finish("q", budget, &header, placed, reports, NOTHING_FIT);
        assert_invariants(&ctx);
        let cites: Vec<&str> = ctx.pieces.iter().map(|p| p.citation.as_str()).collect();
        assert_eq!(cites, ["a.py:1-3", "b.py:1-3"]);
        assert!(!ctx.markdown.contains("## Project patterns"));
        assert_eq!(report(&ctx, Section::Patterns).used, 0);
        assert_eq!(report(&ctx, Section::Code).used, 2);
    }

    #[test]
    fn uncovered_run_cases() {
        assert_eq!(uncovered_run(&[], 5, 9), Some((5, 9)));
        assert_eq!(uncovered_run(&[(1, 6)], 5, 9), Some((7, 9)));
        assert_eq!(uncovered_run(&[(8, 20)], 5, 9), Some((5, 7)));
        assert_eq!(uncovered_run(&[(6, 7)], 5, 9), None);
        assert_eq!(uncovered_run(&[(1, 5), (9, 9)], 5, 9), Some((6, 8)));
        assert_eq!(uncovered_run(&[(1, 4), (10, 12)], 5, 9), Some((5, 9)));
        assert_eq!(uncovered_run(&[(1, 9)], 5, 9), None);
        assert_eq!(uncovered_run(&[(5, usize::MAX)], 5, usize::MAX), None);
        assert_eq!(uncovered_run(&[(1, 2)], usize::MAX - 1, usize::MAX), Some((usize::MAX - 1, usize::MAX)));
    }

    fn arb_piece() -> impl Strategy<Value = Piece> {
        (
            0usize..4,
            prop::sample::select(vec!["a.py", "src/b.js", "c.ts"]),
            0usize..60,
            prop_oneof![4 => 0usize..40, 1 => Just(usize::MAX)],
            prop::collection::vec("[a-z`(){} ]{0,30}", 0..45),
            prop::option::of("[a-z_.]{1,12}"),
            prop::option::of("[a-z ]{0,20}"),
        )
            .prop_map(|(sec, path, start, len, content, symbol, note)| Piece {
                section: Section::ALL[sec],
                path: path.to_string(),
                start_line: start,
                // Mostly consistent ranges; sometimes end < start.
                end_line: if len == usize::MAX { start / 2 } else { start + len },
                symbol,
                kind: Kind::Function,
                language: Language::Python,
                content: content.join("\n"),
                note,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn assembled_context_holds_its_invariants(
            budget in 0usize..20000,
            cands in prop::collection::vec(arb_piece(), 0..30),
        ) {
            let ctx = assemble("some query", cands, &ContextOptions { budget });
            assert_invariants(&ctx);
            prop_assert_eq!(ctx.sections.len(), 4);
            for p in &ctx.pieces {
                prop_assert!(ctx.markdown.contains(&p.content));
            }
        }
    }
}

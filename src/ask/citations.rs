//! The `[n]` citations an answer writes, checked against the sources given.
//!
//! Text in code (fenced blocks, inline spans) is not read: `items[1]` in a
//! code sample is an index, not a citation. Outside code, `[n]`, `[n, m]`
//! and `[n][m]` cite; a bracket right after a word or a closing parenthesis
//! (`args[1]`, `f()[0]`) is an index.

use std::sync::OnceLock;

use regex::Regex;

/// (the known sources cited, in order of first citation; the numbers cited
/// that name no source), for an answer given `sources` numbered 1..=sources.
pub fn check(answer: &str, sources: usize) -> (Vec<usize>, Vec<usize>) {
    static CITE: OnceLock<Regex> = OnceLock::new();
    let cite = CITE.get_or_init(|| Regex::new(r"\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]").expect("a valid pattern"));
    let prose = outside_code(answer);
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for m in cite.captures_iter(&prose) {
        let whole = m.get(0).expect("the match");
        let before = prose[..whole.start()].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')') {
            continue;
        }
        for n in m[1].split([',', ';']).filter_map(|n| n.trim().parse::<usize>().ok()) {
            let list = if (1..=sources).contains(&n) { &mut known } else { &mut unknown };
            if !list.contains(&n) {
                list.push(n);
            }
        }
    }
    (known, unknown)
}

/// `answer` with fenced blocks and inline code spans blanked out.
fn outside_code(answer: &str) -> String {
    let mut out = String::with_capacity(answer.len());
    let mut in_fence = false;
    for line in answer.split_inclusive('\n') {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push('\n');
            continue;
        }
        let mut in_span = false;
        for c in line.chars() {
            if c == '`' {
                in_span = !in_span;
                out.push(' ');
            } else {
                out.push(if in_span { ' ' } else { c });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn citations_known_unknown_and_code_that_only_looks_like_one() {
        let answer = "Sessions are saved by `persist[1]` in [2], called from [3][1] and [1, 4].\n\
                      See also [9].\n```python\nx = items[5]\n```\nIndexing args[6] is not a citation, nor f()[7]; [0] is.";
        assert_eq!(check(answer, 4), (vec![2, 3, 1, 4], vec![9, 0]));
        assert_eq!(check("no sources cited", 3), (vec![], vec![]));
    }
}

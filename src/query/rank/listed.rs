//! A question that lists what it asks about wants every item answered:
//! [`covering`] lifts, for each item the question lists
//! ([`crate::query::question::parts`]), the best candidate whose name says
//! it to just below the first result.

use crate::query::base::parameters::IDF_SMOOTHING;
use std::collections::HashSet;

use crate::query::answer::Hit;
use crate::query::question::parts::Listing;
use crate::stores::keyword::analyze;

/// Candidates an item's answer is looked for among (the fused list's head:
/// deeper ones are rarely about the question at all).
pub const POOL: usize = 40;

/// `hits` with, for each item, the candidate among the first [`POOL`] whose
/// name holds most of the item's words (one at least), and of those the one
/// whose text holds most of the topic (the item's implementation, not a
/// wrapper or a sibling named after it), then the better ranked, moved up to
/// follow the first result, in the items' order; the rest keep theirs. `hits`
/// carry their content. Measured on the dev kit and the Rust/Go corpora
/// (hybrid nDCG@10): the lift took multi-part questions 0.539 -> 0.556, the
/// topic 0.556 -> 0.577 (concept 0.621 -> 0.619, all 273 0.754 -> 0.756); a
/// name that says an item as one word ([`compounds`]) 0.614 -> 0.619.
pub fn covering(hits: Vec<Hit>, listing: &Listing) -> Vec<Hit> {
    let pool = hits.len().min(POOL);
    let names: Vec<HashSet<String>> = hits[..pool].iter().map(|h| h.symbol.as_deref().map(|s| analyze(s).into_iter().collect()).unwrap_or_default()).collect();
    let joined: Vec<Vec<String>> = hits[..pool].iter().map(|h| compounds(h.symbol.as_deref().unwrap_or(""))).collect();
    let contents: Vec<&str> = hits[..pool].iter().map(|h| h.content.as_str()).collect();
    let on_topic = topic_weights(&contents, &listing.topic);
    let mut chosen: Vec<usize> = Vec::new();
    for item in &listing.items {
        let best = (0..pool)
            .filter(|i| !chosen.contains(i))
            .filter_map(|i| {
                let said = item.iter().filter(|t| names[i].contains(*t) || joined[i].iter().any(|c| c.starts_with(t.as_str()))).count();
                (said > 0).then_some((said as f32 / item.len() as f32, on_topic[i], i))
            })
            // Most of the item's words, then the most of the topic, then the better ranked.
            .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(b.2.cmp(&a.2)))
            .map(|(_, _, i)| i);
        if let Some(i) = best {
            chosen.push(i);
        }
    }
    if chosen.is_empty() {
        return hits;
    }
    let mut order: Vec<usize> = vec![0];
    order.extend(chosen.iter().copied().filter(|&i| i != 0));
    let lifted: HashSet<usize> = order.iter().copied().collect();
    order.extend((0..hits.len()).filter(|i| !lifted.contains(i)));
    let mut slots: Vec<Option<Hit>> = hits.into_iter().map(Some).collect();
    order
        .into_iter()
        .enumerate()
        .filter_map(|(at, i)| {
            slots[i].take().map(|h| super::files::moved_if(h, at != i && chosen.contains(&i), crate::query::answer::explain::Moved::ListedItem))
        })
        .collect()
}

/// Each two adjacent words of a name written as one, lowercase
/// (`genPowerShellComp`: `genpower`, `powershell`, `shellcomp`): the name
/// says `powershell` though its words are `power` and `shell`.
fn compounds(symbol: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for part in symbol.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            // A capital starts a word after a small letter, or ends an
            // acronym when a small letter follows it (`HTMLTree`).
            let starts = c.is_uppercase()
                && i > 0
                && (chars[i - 1].is_lowercase() || (chars[i - 1].is_uppercase() && chars.get(i + 1).is_some_and(|n| n.is_lowercase())));
            if starts && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words.windows(2).map(|w| w.concat()).collect()
}

/// How much of the topic each chunk's text holds: a topic word counts up to
/// its weight, by `tf / (tf + 1)` (a body about it beats a wrapper naming it
/// once), weighted by how few of the chunks hold it (BM25's idf over the
/// pool: "request" in every chunk of an HTTP client says nothing).
fn topic_weights(contents: &[&str], topic: &[String]) -> Vec<f32> {
    if topic.is_empty() {
        return vec![0.0; contents.len()];
    }
    let counts: Vec<Vec<f32>> = contents
        .iter()
        .map(|c| {
            let terms = analyze(c);
            topic.iter().map(|t| terms.iter().filter(|x| *x == t).count() as f32).collect()
        })
        .collect();
    let n = contents.len() as f32;
    let idf: Vec<f32> = (0..topic.len())
        .map(|j| {
            let df = counts.iter().filter(|c| c[j] > 0.0).count() as f32;
            ((n - df + IDF_SMOOTHING) / (df + IDF_SMOOTHING) + 1.0).ln()
        })
        .collect();
    counts.iter().map(|c| c.iter().zip(&idf).map(|(tf, w)| w * tf / (tf + 1.0)).sum()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::question::parts::enumerated;

    #[test]
    fn a_name_written_as_one_word_says_its_compound() {
        assert_eq!(compounds("genPowerShellComp"), ["genpower", "powershell", "shellcomp"]);
        assert_eq!(compounds("Command.GenHTMLTree"), ["commandgen", "genhtml", "htmltree"]);
        assert_eq!(compounds("gen_zsh_comp"), ["genzsh", "zshcomp"]);
    }

    fn hit(symbol: &str) -> Hit {
        Hit { path: "a.py".into(), start_line: 1, end_line: 2, symbol: Some(symbol.into()), ..Default::default() }
    }

    #[test]
    fn each_item_gets_its_best_named_candidate_near_the_top() {
        let hits: Vec<Hit> = ["prepare", "send", "Request", "prepare_auth", "merge", "prepare_url", "prepare_body", "noise"].map(hit).to_vec();
        let items = &enumerated("prepare a request: url, body and auth");
        let order: Vec<String> = covering(hits, items).into_iter().filter_map(|h| h.symbol).collect();
        assert_eq!(order, ["prepare", "prepare_url", "prepare_body", "prepare_auth", "send", "Request", "merge", "noise"]);
        // Nothing named after an item: the order stays.
        let hits: Vec<Hit> = ["x", "y"].map(hit).to_vec();
        let order: Vec<String> = covering(hits, items).into_iter().filter_map(|h| h.symbol).collect();
        assert_eq!(order, ["x", "y"]);
    }

    #[test]
    fn of_the_candidates_an_item_names_the_one_on_the_topic_is_lifted() {
        let listing = enumerated("how do the markdown, man page and yaml generators build the see-also section");
        assert_eq!(listing.items.len(), 3);
        assert!(listing.topic.contains(&"see".to_string()) && listing.topic.contains(&"section".to_string()), "{:?}", listing.topic);
        let with = |symbol: &str, content: &str| Hit { content: content.into(), ..hit(symbol) };
        let hits = vec![
            with("GenManTree", "func GenManTree(cmd *Command, dir string) error { return GenManTreeFromOpts(cmd, opts) }"),
            with("GenMarkdownTree", "func GenMarkdownTree(cmd *Command, dir string) error { for _, c := range cmd.Commands() { GenMarkdownTree(c, dir) } }"),
            with("GenYamlTree", "func GenYamlTree(cmd *Command, dir string) error { return GenYamlTreeCustom(cmd, dir) }"),
            with(
                "GenMarkdownCustom",
                "func GenMarkdownCustom(cmd *Command, w io.Writer) error { buf.WriteString(\"### SEE ALSO\\n\") // the see also section }",
            ),
            with("genMan", "func genMan(cmd *Command) []byte { buf.WriteString(\"# SEE ALSO\\n\") }"),
        ];
        let order: Vec<String> = covering(hits, &listing).into_iter().filter_map(|h| h.symbol).collect();
        // markdown and man page: the bodies that write the section; yaml: the only one named.
        assert_eq!(order, ["GenManTree", "GenMarkdownCustom", "genMan", "GenYamlTree", "GenMarkdownTree"]);
    }
}

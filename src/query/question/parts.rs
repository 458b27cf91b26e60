//! Questions that list what they ask about ("… prepare a request: url,
//! headers, body, auth and cookies"; "completion scripts for bash, zsh,
//! fish and powershell") want every item answered, not the item whose words
//! the retrievers weigh most ten times over. [`enumerated`] reads the list's
//! items (and what the question asks of each) from a question; the ranking
//! stage (`crate::query::rank::listed`) lifts each item's answer.

use super::words::is_stopword;
use crate::stores::keyword::analyze;

/// The list a question holds: its items, and what it asks of every one
/// ("how do the markdown, man page and yaml generators **build the see-also
/// section**"), each as stemmed words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub items: Vec<Vec<String>>,
    /// The question's other content words.
    pub topic: Vec<String>,
}

impl Listing {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Words that never name an item.
const FILLER: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "how", "are", "is", "do", "does", "its", "it", "their", "this", "that", "these", "those",
    "every", "each", "all", "by", "from", "with", "when", "where", "what", "which", "then", "both", "through", "into", "out", "up", "via", "be", "get", "gets",
    "got",
];

/// The items of the list a question holds — at least three, written
/// `a, b, c and d` (or `or`, with or without the last comma), after a colon
/// when there is one — each as its stemmed content words. The first and last
/// items are cut to as many words as the longest middle one (the sentence
/// runs into them). Empty when the question lists nothing.
pub fn enumerated(text: &str) -> Listing {
    let items = items(text);
    if items.is_empty() {
        return Listing::default();
    }
    let words: Vec<&str> = content_words(text).into_iter().filter(|w| !is_stopword(&w.to_lowercase())).collect();
    let mut topic: Vec<String> = Vec::new();
    for t in analyze(&words.join(" ")) {
        if !items.iter().any(|i| i.contains(&t)) && !topic.contains(&t) {
            topic.push(t);
        }
    }
    Listing { items, topic }
}

fn items(text: &str) -> Vec<Vec<String>> {
    let list = text.split_once(':').map_or(text, |(_, after)| after);
    let segments: Vec<&str> = list.split(',').map(str::trim).collect();
    let Some((&last, head)) = segments.split_last() else { return Vec::new() };
    let Some((&first, middle)) = head.split_first() else { return Vec::new() };
    let mut middle: Vec<&str> = middle.to_vec();
    let final_item = if let Some(rest) = last.strip_prefix("and ").or_else(|| last.strip_prefix("or ")) {
        rest
    } else {
        let at = [" and ", " or "].iter().filter_map(|c| last.find(c).map(|i| (i, c.len()))).min();
        let Some((i, len)) = at else { return Vec::new() };
        middle.push(&last[..i]);
        &last[i + len..]
    };
    if middle.is_empty() {
        return Vec::new();
    }
    let middle: Vec<Vec<&str>> = middle.iter().map(|m| content_words(m)).collect();
    let width = middle.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let first = content_words(first);
    let first = first[first.len().saturating_sub(width)..].to_vec();
    let final_words: Vec<&str> = content_words(final_item).into_iter().take(width).collect();
    let items: Vec<Vec<String>> = std::iter::once(first)
        .chain(middle)
        .chain(std::iter::once(final_words))
        .map(|words| analyze(&words.join(" ")))
        .filter(|terms| !terms.is_empty())
        .collect();
    if items.len() < 3 {
        return Vec::new();
    }
    items
}

fn content_words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.to_lowercase().as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_items_of_a_list_are_read() {
        let items = &enumerated("all the steps that prepare a request before it is sent: url, headers, body, auth and cookies");
        assert_eq!(items.items, [["url"], ["header"], ["bodi"], ["auth"], ["cooki"]].map(|i| i.map(String::from).to_vec()));
        let items = &enumerated("how are the completion scripts for bash, zsh, fish and powershell generated");
        assert_eq!(items.items.len(), 4);
        assert_eq!(items.items[3], ["powershel"]);
        // Two-word items: the sentence around the first and last is cut off.
        let items = &enumerated("full lifecycle of running a command: locating the subcommand, parsing options, validating arguments and running the hooks");
        assert_eq!(items.items.len(), 4);
        assert_eq!(items.items[0], ["locat", "subcommand"]);
        assert_eq!(items.items[3], ["run", "hook"]);
        // The last comma before "and".
        assert_eq!(enumerated("picking it up from the environment, parsing it, and connecting through it").items.len(), 3);
        for none in ["exception types for connect and read timeouts", "retry, then give up", "where is parse_header_links defined", "a, b"] {
            assert!(enumerated(none).is_empty(), "{none}");
        }
    }
}

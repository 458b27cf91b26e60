//! A qualified name's parts: the one home of how a name is split.
//!
//! Names come in two spellings. **As written**, each language joins a
//! definition to its scope its own way (`lang::Language::scope_separator`
//! and `tags`): `a.b.c`, `Shop::Price::total`, Ruby's `Foo#bar`, Erlang's
//! `shape:area`, PHP's `App\Models\User`; a reference adds calls and
//! receivers (`self.x()`, `p->f`). **Canonical** ([`canonical`]) writes
//! every scope separator as a dot: how the graph keys and looks up
//! definitions (`graph.redb`'s `names`, its stubs), so that `A::b` and
//! `A.b` meet.
//!
//! - [`own_part`]: the name a reference to it uses, from either spelling,
//!   whatever the separators (impact, the ranking's features, the server's
//!   graph questions, the vector payloads of calls and bases).
//! - [`parent`]: the enclosing definition, in the spelling given.
//! - [`canonical`], [`canonical_own_part`] and [`last_dotted`]: the
//!   spellings stored in the index (the graph's lookup names, the keyword
//!   index's name terms). They split where the stored data was split when
//!   it was written; splitting them differently means a new `VERSION` and a
//!   rebuild, so they stay apart from [`own_part`] on purpose.
//!
//! A definition's own name as declared (`Symbol::name`) is the tags
//! query's: `.` and `::` only, as config keys and SQL names may hold `:`,
//! `/` or `#` (`tags`, [`declared_own_part`]).

use std::borrow::Cow;

/// The characters that end a scope in a qualified name or a reference, in
/// any language: `.`, `::` and Erlang's `:`, Ruby's `#`, PHP's `\`, a path's
/// `/`, and the `>` of C's and PHP's `->`.
pub const SEPARATORS: [char; 6] = ['.', ':', '#', '\\', '/', '>'];

/// The part of a name or reference a reference to it uses, whatever the
/// language's separators ([`SEPARATORS`]): `Session.send`, `a::b::send`,
/// `Foo#send`, `shape:send`, `App\Mail\send`, `p->send` and `self.send()`
/// are all `send`. The call's arguments are cut first; a trailing separator
/// is skipped (`initWithFrame:` is `initWithFrame`).
pub fn own_part(name: &str) -> &str {
    let name = name.split('(').next().unwrap_or(name);
    name.rsplit(SEPARATORS).find(|s| !s.is_empty()).unwrap_or(name)
}

/// The enclosing definition's name, spelled as given: `Shape` of
/// `Shape.area`, `Shape::area`, `Shape#area` and Erlang's `shape:area`;
/// `None` for a name of one part. (PHP's `\` separates namespaces, not
/// definitions, and is not a parent here.)
pub fn parent(name: &str) -> Option<&str> {
    let one = name.rfind(['.', '#']);
    // A `::` separator starts at its first colon.
    let two = name.rfind(':').map(|at| if name[..at].ends_with(':') { at - 1 } else { at });
    let at = one.into_iter().chain(two).max()?;
    Some(&name[..at]).filter(|p| !p.is_empty())
}

/// A name with every scope separator written as a dot: `a::B::c`, `B#c`,
/// `shape:area`, `p->f` → `a.B.c`, `B.c`, `shape.area`, `p.f` (a leading
/// `#`, Ruby's instance-method notation alone, is kept). `\` and `/` are not
/// scope separators in the graph's keys.
pub fn canonical(name: &str) -> Cow<'_, str> {
    if !name.contains([':', '#', '-']) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ':' => {
                if chars.peek() == Some(&':') {
                    chars.next();
                }
                out.push('.');
            }
            '#' if !out.is_empty() && !out.ends_with('.') => out.push('.'),
            '-' if chars.peek() == Some(&'>') => {
                chars.next();
                out.push('.');
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The last part of the [`canonical`] spelling: `a.B.c`, `a::B::c`, `B#c`
/// → `c` (the graph's lookup names are these, lowercased).
pub fn canonical_own_part(name: &str) -> String {
    let canonical = canonical(name);
    last_dotted(&canonical).to_string()
}

/// What follows the last dot (all of it without one; empty after a
/// trailing dot): how the keyword index splits the names it stores.
pub fn last_dotted(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// A declared name's own part as the tags query writes it: after the last
/// `.`, then after the last `::` (`exports.f` is `f`, `Shop::Price` is
/// `Price`); a config key's `:`, `/` or `#` stay.
pub fn declared_own_part(written: &str) -> &str {
    let name = written.rsplit('.').next().filter(|n| !n.is_empty()).unwrap_or(written);
    name.rsplit("::").next().filter(|n| !n.is_empty()).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::lang::Language;

    /// Each language's definitions, joined to their scope as the language
    /// joins them, give back their own part and parent.
    #[test]
    fn every_languages_scope_separator_splits_back() {
        for language in Language::ALL {
            let sep = language.scope_separator();
            let qualified = format!("Outer{sep}Inner{sep}method");
            assert_eq!(own_part(&qualified), "method", "{language:?}: {qualified}");
            assert_eq!(parent(&qualified), Some(format!("Outer{sep}Inner").as_str()), "{language:?}: {qualified}");
            assert_eq!(canonical_own_part(&qualified), "method", "{language:?}: {qualified}");
            assert_eq!(canonical(&qualified), "Outer.Inner.method", "{language:?}: {qualified}");
        }
    }

    #[test]
    fn the_own_part_of_names_and_references_in_every_spelling() {
        let cases = [
            ("a.b.c", "c"),
            ("A::B::c", "c"),
            ("Foo#bar", "bar"),
            ("A::B#m", "m"),
            (r"App\Models\User", "User"),
            ("pkg/sub.Func", "Func"),
            ("Shop::Price::total", "total"),
            ("shape:area", "area"),
            ("foo(int)", "foo"),
            ("self.session.send(x, y.z)", "send"),
            ("p->f", "f"),
            ("Foo.initWithFrame:", "initWithFrame"),
            ("#bar", "bar"),
            ("plain", "plain"),
            ("", ""),
        ];
        for (name, own) in cases {
            assert_eq!(own_part(name), own, "{name}");
        }
    }

    #[test]
    fn parents_keep_the_spelling_given() {
        let cases = [
            ("a.b.c", Some("a.b")),
            ("A::B::c", Some("A::B")),
            ("Foo#bar", Some("Foo")),
            ("shape:area", Some("shape")),
            ("pkg/sub.Func", Some("pkg/sub")),
            (r"App\Models\User", None),
            ("plain", None),
            (".hidden", None),
        ];
        for (name, parent_of) in cases {
            assert_eq!(parent(name), parent_of, "{name}");
        }
    }

    #[test]
    fn stored_spellings_split_where_they_were_written() {
        assert_eq!(canonical("a::B::c"), "a.B.c");
        assert_eq!(canonical("B#c"), "B.c");
        assert_eq!(canonical("#c"), "#c");
        assert_eq!(canonical("p->f"), "p.f");
        assert_eq!(canonical(r"App\Models"), r"App\Models");
        assert_eq!(canonical_own_part(r"App\Models"), r"App\Models", "a PHP namespace is one graph name");
        assert_eq!(last_dotted("a::b::c"), "a::b::c", "the keyword index's terms split at dots only");
        assert_eq!(last_dotted("a.b."), "");
        assert_eq!(declared_own_part("exports.f"), "f");
        assert_eq!(declared_own_part("Shop::Price"), "Price");
        assert_eq!(declared_own_part("server:port"), "server:port", "a config key keeps its colon");
        assert_eq!(declared_own_part("paths./api/{id}"), "/api/{id}");
    }
}

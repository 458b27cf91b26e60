//! [`Kind`]: what a result, a context piece or a graph node is, as one type
//! from analysis to the JSON contract (no string matching past analysis).
//!
//! It is the union of a chunk's kind ([`ChunkKind`]), a definition's
//! ([`SymbolKind`]) and the few the query and the graph add (a mined
//! pattern, a file's imports, a node the graph only knows by name). It is
//! written and read as its lowercase name, as the stores have always held
//! it (tantivy's `kind` field, Qdrant payloads, the graph's records), so
//! nothing on disk changes.

use std::fmt;

use crate::analysis::chunk::ChunkKind;
use crate::analysis::parse::SymbolKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Kind {
    /// Imports and outline of a whole file; the graph's node of a file.
    File,
    Class,
    Interface,
    Enum,
    /// A namespace (Rust `mod`, C++/C# `namespace`, Ruby `module`); the
    /// graph's node of a module a file stands for.
    Module,
    Type,
    Function,
    Method,
    Variable,
    Const,
    /// A configuration key (YAML, TOML, JSON).
    Key,
    /// A part of a definition over the budget.
    Block,
    /// Module-level code between definitions.
    #[default]
    Code,
    /// A Markdown section.
    Section,
    /// Paragraphs of a plain text file.
    Text,
    /// Lines of a file over the parse cap, or a window of lines a literal matched.
    Window,
    /// The whole text of a file that did not parse cleanly.
    Fallback,
    /// A convention mined from the code (`patterns`).
    Pattern,
    /// A file's import lines, in a context.
    Imports,
    /// A chunk whose kind its store did not record.
    Chunk,
    /// A graph node outside the repository (an import of a package).
    External,
    /// A graph node known only by the name something calls.
    Stub,
    /// A graph node whose file is not loaded (a dangling record).
    NotLoaded,
}

impl Kind {
    pub const ALL: [Kind; 23] = [
        Kind::File,
        Kind::Class,
        Kind::Interface,
        Kind::Enum,
        Kind::Module,
        Kind::Type,
        Kind::Function,
        Kind::Method,
        Kind::Variable,
        Kind::Const,
        Kind::Key,
        Kind::Block,
        Kind::Code,
        Kind::Section,
        Kind::Text,
        Kind::Window,
        Kind::Fallback,
        Kind::Pattern,
        Kind::Imports,
        Kind::Chunk,
        Kind::External,
        Kind::Stub,
        Kind::NotLoaded,
    ];

    /// The name the JSON contract and the stores use.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Class => "class",
            Kind::Interface => "interface",
            Kind::Enum => "enum",
            Kind::Module => "module",
            Kind::Type => "type",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Variable => "variable",
            Kind::Const => "const",
            Kind::Key => "key",
            Kind::Block => "block",
            Kind::Code => "code",
            Kind::Section => "section",
            Kind::Text => "text",
            Kind::Window => "window",
            Kind::Fallback => "fallback",
            Kind::Pattern => "pattern",
            Kind::Imports => "imports",
            Kind::Chunk => "chunk",
            Kind::External => "external",
            Kind::Stub => "stub",
            Kind::NotLoaded => "not loaded",
        }
    }

    /// The kind named `name` (exactly, lowercase).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// What `--kind` may name: the kinds of chunks and of definitions.
    pub fn searchable() -> Vec<Kind> {
        let mut all: Vec<Kind> = ChunkKind::all().iter().map(|k| Kind::from(*k)).collect();
        for k in SymbolKind::ALL.map(Kind::from) {
            if !all.contains(&k) {
                all.push(k);
            }
        }
        all
    }

    /// A function or a method: what calls and is called.
    pub fn is_callable(self) -> bool {
        matches!(self, Kind::Function | Kind::Method)
    }

    /// A whole file's or a container's outline, or a pattern: outlines elide
    /// their members' bodies, so they do not repeat the members' lines.
    pub fn is_outline(self) -> bool {
        matches!(self, Kind::File | Kind::Class | Kind::Interface | Kind::Enum | Kind::Module | Kind::Pattern)
    }

    /// Prose, not code: a Markdown section or a text file's paragraphs.
    pub fn is_prose(self) -> bool {
        matches!(self, Kind::Section | Kind::Text)
    }

    /// A type's definition: a class, interface, enum or type (a module too
    /// where `module` is true).
    pub fn is_type_like(self, module: bool) -> bool {
        matches!(self, Kind::Class | Kind::Interface | Kind::Enum | Kind::Type) || (module && self == Kind::Module)
    }
}

impl From<ChunkKind> for Kind {
    fn from(k: ChunkKind) -> Kind {
        match k {
            ChunkKind::File => Kind::File,
            ChunkKind::Class => Kind::Class,
            ChunkKind::Interface => Kind::Interface,
            ChunkKind::Enum => Kind::Enum,
            ChunkKind::Module => Kind::Module,
            ChunkKind::Type => Kind::Type,
            ChunkKind::Function => Kind::Function,
            ChunkKind::Method => Kind::Method,
            ChunkKind::Block => Kind::Block,
            ChunkKind::Code => Kind::Code,
            ChunkKind::Section => Kind::Section,
            ChunkKind::Text => Kind::Text,
            ChunkKind::Window => Kind::Window,
            ChunkKind::Fallback => Kind::Fallback,
        }
    }
}

impl From<SymbolKind> for Kind {
    fn from(k: SymbolKind) -> Kind {
        match k {
            SymbolKind::Function => Kind::Function,
            SymbolKind::Method => Kind::Method,
            SymbolKind::Class => Kind::Class,
            SymbolKind::Interface => Kind::Interface,
            SymbolKind::Type => Kind::Type,
            SymbolKind::Enum => Kind::Enum,
            SymbolKind::Variable => Kind::Variable,
            SymbolKind::Const => Kind::Const,
            SymbolKind::Module => Kind::Module,
            SymbolKind::Key => Kind::Key,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Written as its name (the stores' and the JSON contract's form).
impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Read from its name; an unknown one is an error that names it.
impl<'de> serde::Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Kind::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown kind `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_agree_with_analysis() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.as_str()), Some(k));
            assert_eq!(serde_json::to_value(k).expect("json"), serde_json::json!(k.as_str()));
            assert_eq!(serde_json::from_value::<Kind>(serde_json::json!(k.as_str())).expect("json"), k);
        }
        for k in ChunkKind::all() {
            assert_eq!(Kind::from(*k).as_str(), k.as_str());
        }
        for k in SymbolKind::ALL {
            assert_eq!(Kind::from(k).as_str(), k.as_str());
        }
        assert!(serde_json::from_value::<Kind>(serde_json::json!("fucntion")).is_err());
    }
}

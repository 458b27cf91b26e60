//! What each file says about itself, as parsed: its symbols with their raw
//! calls and bases, its imports and pattern instances. The graph is a
//! function of these facts.

use serde::{Deserialize, Serialize};

use crate::analysis::chunk::FileChunks;
use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::analysis::parse::Import;

/// One definition as the graph needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolFact {
    pub qualified_name: String,
    pub name: String,
    pub kind: Kind,
    pub parent: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    pub calls: Vec<String>,
    pub bases: Vec<String>,
}

/// What one file says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub language: Language,
    pub symbols: Vec<SymbolFact>,
    pub imports: Vec<Import>,
    /// Conventions seen in this file; aggregated over the repository into PATTERNS.
    pub patterns: Vec<crate::analysis::patterns::PatternInstance>,
    /// Calls outside any definition: edges from the file itself.
    pub module_calls: Vec<String>,
}

impl FileFacts {
    pub fn of(chunks: &FileChunks) -> FileFacts {
        FileFacts {
            language: chunks.language,
            symbols: chunks
                .symbols
                .iter()
                .map(|s| SymbolFact {
                    qualified_name: s.qualified_name.clone(),
                    name: s.name.clone(),
                    kind: Kind::from(s.kind),
                    parent: s.parent.clone(),
                    start_line: s.span.start_line,
                    end_line: s.span.end_line,
                    calls: s.calls.clone(),
                    bases: s.bases.clone(),
                })
                .collect(),
            imports: chunks.imports.clone(),
            patterns: chunks.patterns.clone(),
            module_calls: chunks.module_calls.clone(),
        }
    }
}

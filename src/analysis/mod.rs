//! From a file's bytes to what the index stores: the language of a path,
//! tree-sitter symbols, imports and calls, cAST chunks, mined conventions.
//! Pure functions of their input; no I/O.

pub mod chunk;
pub mod lang;
pub mod parse;
pub mod patterns;

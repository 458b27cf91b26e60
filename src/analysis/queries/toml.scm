; TOML: top-level keys and tables (`[dependencies]`, `[[bin]]`,
; `[package.metadata.docs.rs]` named as written) and the keys one level
; below (`dependencies.serde`, an inline table's keys under a top-level
; key), named by their dotted path (captures: see tags.rs). `#` comments
; above a key are its doc.
(document (pair . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key)
(document (table . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key)
(document (table_array_element . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key)
(document (table (pair . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key))
(document (table_array_element (pair . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key))
(document (pair (inline_table (pair . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.key)))

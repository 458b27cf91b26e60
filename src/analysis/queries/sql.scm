; SQL (tree-sitter-sequel): tables, views, functions, types, indexes,
; triggers, sequences and schemas, named as written (`public.users`: the
; schema included, quotes dropped); the tables and functions a statement
; names are its uses (captures: see tags.rs). `--` and `/* */` comments
; above a definition are its doc.

; `CREATE TABLE [IF NOT EXISTS] public.users (…)`: a class of its columns.
(statement
  (create_table [(keyword_table) (keyword_exists)] . (object_reference) @name (column_definitions)? @body)) @definition.class

; Views and materialized views: classes too, their query the body.
(statement
  (create_view [(keyword_view) (keyword_exists)] . (object_reference) @name (create_query)? @body)) @definition.class
(statement
  (create_materialized_view [(keyword_view) (keyword_exists)] . (object_reference) @name (create_query)? @body)) @definition.class

; `CREATE [OR REPLACE] FUNCTION f(…) RETURNS … AS $$ … $$`.
(statement
  (create_function (keyword_function) . (object_reference) @name (function_body)? @body)) @definition.function

; `CREATE TRIGGER t AFTER INSERT ON users … EXECUTE PROCEDURE f()`: code that runs.
(statement
  (create_trigger [(keyword_trigger) (keyword_exists)] . (object_reference) @name)) @definition.function

; `CREATE TYPE s AS ENUM (…)`; any other type (composite, range).
(statement
  (create_type (keyword_type) . (object_reference) @name (enum_elements) @body)) @definition.enum
(statement
  (create_type (keyword_type) . (object_reference) @name)) @definition.type

; Indexes and sequences: names in the symbol table, merged with their neighbours' chunks.
(statement
  (create_index column: (_) @name)) @definition.variable
(statement
  (create_sequence [(keyword_sequence) (keyword_exists)] . (object_reference) @name)) @definition.variable

(statement
  (create_schema [(keyword_schema) (keyword_exists)] . (identifier) @name)) @definition.module

; Uses: a table read or written (`FROM`, `JOIN`, `UPDATE`, `INSERT INTO`,
; `DELETE FROM`), a foreign key's `REFERENCES t`, an index's or trigger's
; table, the function a trigger runs, and function calls.
(relation (object_reference) @callee) @reference.call
(from (keyword_from) . (object_reference) @callee) @reference.call
(insert (object_reference) @callee) @reference.call
(_ (keyword_references) . (object_reference) @callee) @reference.call
; The grammar misreads a column's `REFERENCES t NOT NULL` (no column list):
; inside the error the use is still there.
(ERROR (keyword_references) . (object_reference) @callee) @reference.call
(create_index (keyword_on) . (object_reference) @callee) @reference.call
(create_trigger (keyword_on) . (object_reference) @callee) @reference.call
(create_trigger [(keyword_procedure) (keyword_function)] . (object_reference) @callee) @reference.call
(invocation (object_reference) @callee) @reference.call

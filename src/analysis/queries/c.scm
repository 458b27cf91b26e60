; C: definitions, calls and includes (captures: see tags.rs).

(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]
  body: (compound_statement) @body) @definition.function

; Prototypes (headers): the declaration is a symbol too.
(declaration
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]) @definition.function

(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(preproc_function_def name: (identifier) @name) @definition.function
(preproc_def name: (identifier) @name) @definition.const

(call_expression function: (_) @callee) @reference.call

(preproc_include path: (_) @import.module) @import

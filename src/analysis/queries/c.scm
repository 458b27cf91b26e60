; C: definitions, calls and includes (captures: see tags.rs).

; Function definitions: `f(…)`, `*f(…)`, `**f(…)`.
(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]
  body: (compound_statement) @body) @definition.function

; Prototypes (headers): the declaration is a symbol too. A function pointer
; variable (`void (*f)(int);`) is not.
(declaration
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]) @definition.function

; `typedef struct {…} T;` is one symbol, the type T (what is inside is part of it).
(type_definition
  type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
  declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
; `typedef void (*handler)(int);`
(type_definition
  declarator: [(function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
               (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))]) @definition.type

(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum

; Macros with a value (not bare `#define GUARD_H_`).
; A function-like macro is called like a function.
(preproc_function_def name: (identifier) @name) @definition.function
(preproc_def name: (identifier) @name value: (_)) @definition.const

(call_expression function: (_) @callee) @reference.call

; `#include "x.h"` / `#include <x.h>`.
(preproc_include path: (_) @import.module) @import

; C++: definitions, calls and includes (captures: see tags.rs).

; Out-of-class definitions `R Foo::bar(…) {…}` are scoped by the class
; written before the name: the innermost one of `a::Foo::bar`, `Foo<T>` in
; `Foo<T>::bar`. (`ns::f` is scoped the same way: the syntax is the same.)
(function_definition
  declarator: (function_declarator
    declarator: [(qualified_identifier scope: (_) @scope name: [(identifier) (destructor_name) (operator_name)] @name)
                 (qualified_identifier name: (qualified_identifier scope: (_) @scope name: [(identifier) (destructor_name) (operator_name)] @name))])
  body: (_)? @body) @definition.method
; … returning a pointer or a reference: `Foo* Foo::make()`, `Foo& Foo::operator=(…)`.
(function_definition
  declarator: [(pointer_declarator declarator: (function_declarator declarator: [
                 (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name)
                 (qualified_identifier name: (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name))]))
               (reference_declarator (function_declarator declarator: [
                 (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name)
                 (qualified_identifier name: (qualified_identifier scope: (_) @scope name: [(identifier) (operator_name)] @name))]))]
  body: (_)? @body) @definition.method

; Free functions, and member functions defined in a class body (the
; extractor makes those methods). No body for `= default` / `= delete`.
(function_definition
  declarator: [(function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)))
               (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))]
  body: (_)? @body) @definition.function

; Prototypes and member declarations are symbols too (headers). But a
; declaration in a function body is a local variable even where it parses as
; a function declarator (`Foo x(y);`), and a friend is not a member: these
; patterns, having no @name, claim such nodes first, and the extractor drops a
; definition without a name (the first pattern that captures a node wins it).
(compound_statement (declaration) @definition.function)
(case_statement (declaration) @definition.function)
(friend_declaration (declaration) @definition.function)
; Prototypes, and constructors and destructors declared in a class.
(declaration
  declarator: [(function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
               (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))]) @definition.function
; Methods declared in a class.
(field_declaration
  declarator: [(function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
               (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))]) @definition.method

; Classes; `class A : public B, ns::C<int>` has bases B and ns::C<int>.
(class_specifier
  name: [(type_identifier) @name
         (template_type name: (type_identifier) @name)
         (qualified_identifier scope: (_) @scope name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)?
  body: (field_declaration_list) @body) @definition.class
(struct_specifier
  name: [(type_identifier) @name
         (template_type name: (type_identifier) @name)
         (qualified_identifier scope: (_) @scope name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)?
  body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name body: (declaration_list) @body) @definition.module

; `typedef struct {…} T;` is one symbol, the type T.
(type_definition
  type: [(struct_specifier body: (_) @body) (class_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
  declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

; Macros with a value (not bare `#define GUARD_H_`).
; A function-like macro is called like a function.
(preproc_function_def name: (identifier) @name) @definition.function
(preproc_def name: (identifier) @name value: (_)) @definition.const

; Calls: the called expression as written (`f`, `ns::f`, `obj.m`, `p->m`,
; `f<T>`); `new T(…)` gives the type.
(call_expression function: (_) @callee) @reference.call
(new_expression type: (_) @callee) @reference.call

; `#include "x.h"` / `#include <x.h>`.
(preproc_include path: (_) @import.module) @import
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_clause parameters: (parameter_list (parameter_declaration type: (_) @pattern.key))) @pattern.error_handling
  (#set! key "except:{}->other"))

; Bindings (receivers.rs): typed parameters, locals and fields (through
; `*` and `&`), for calls through them (`store->save()` with `Store* store`
; is `Store.save`).
(parameter_declaration
  type: (_) @binding.type
  declarator: [(identifier) @binding.name
               (reference_declarator (identifier) @binding.name)
               (pointer_declarator declarator: (identifier) @binding.name)]) @binding
(declaration
  type: (_) @binding.type
  declarator: [(identifier) @binding.name
               (init_declarator declarator: (identifier) @binding.name)
               (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
               (init_declarator declarator: (reference_declarator (identifier) @binding.name))
               (pointer_declarator declarator: (identifier) @binding.name)]) @binding
(field_declaration
  type: (_) @binding.type
  declarator: [(field_identifier) @binding.name
               (pointer_declarator declarator: (field_identifier) @binding.name)
               (reference_declarator (field_identifier) @binding.name)]) @binding

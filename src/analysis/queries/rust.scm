; Rust: definitions, impl scopes, calls and imports (captures: see tags.rs).

; Definitions. A `function_item` anywhere (impl, trait, mod, nested in a
; block) is a function; inside an impl or trait the extractor makes it a method.
(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.class
(union_item name: (type_identifier) @name body: (_) @body) @definition.class
(enum_item name: (type_identifier) @name body: (enum_variant_list) @body) @definition.enum
(trait_item
  name: (type_identifier) @name
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @base)?
  body: (declaration_list) @body) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
; Item-level constants and statics only (not a `static` inside a function body).
(source_file (const_item name: (identifier) @name) @definition.const)
(source_file (static_item name: (identifier) @name) @definition.const)
(declaration_list (const_item name: (identifier) @name) @definition.const)
(declaration_list (static_item name: (identifier) @name) @definition.const)
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.module
(macro_definition name: (identifier) @name) @definition.function

; `impl [Trait for] Type`: members are qualified by the type's own name
; (`Foo` in `impl<T> Tr for Foo<T>`, `a::Foo`, `&Foo`).
(impl_item
  trait: [(type_identifier) (scoped_type_identifier) (generic_type)]? @base
  type: [(type_identifier) @name
         (primitive_type) @name
         (generic_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
         (scoped_type_identifier name: (type_identifier) @name)
         (reference_type type: [(type_identifier) @name
                                (generic_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                (scoped_type_identifier name: (type_identifier) @name)])]
  body: (declaration_list) @body) @scope.impl

; Calls: the called expression as written (`f`, `Foo::new`, `self.x.y`,
; `foo::<T>`), and macro invocations by the macro's name.
(call_expression function: (_) @callee) @reference.call
(macro_invocation macro: (_) @callee) @reference.call
; A call inside a macro's arguments (`assert_eq!(parse(x), 1)`,
; `vec![Foo::new()]`) is tokens to the grammar: a name and the parenthesised
; group after it. tags.rs keeps it only where the two touch, and reads the
; path or receiver written before the name (`Foo::new`, `self.state.save`).
(token_tree (identifier) @callee @reference.call . (token_tree) @callee.args)

; Imports. `use a::b::C;` → module `a::b`, name `C`.
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
; `use a::b as c;` → module `a`, name `b` (the name as defined).
(use_declaration
  argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name))) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.module)) @import
; `use a;`
(use_declaration argument: (identifier) @import.module) @import
; `use a::b::{C, d::E, F as G, h::{I, J}}` → module `a::b`, names C, E, F, I, J
; (the names of a nested list are kept; their sub-path is not).
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list
      [(identifier) @import.name
       (scoped_identifier name: (identifier) @import.name)
       (use_as_clause path: [(identifier) @import.name (scoped_identifier name: (identifier) @import.name)])
       (scoped_use_list list: (use_list
         [(identifier) @import.name
          (scoped_identifier name: (identifier) @import.name)
          (use_as_clause path: [(identifier) @import.name (scoped_identifier name: (identifier) @import.name)])]))]))) @import
; The same list with nothing nameable (`use a::{self, b::*}`): the module alone.
(use_declaration argument: (scoped_use_list path: (_) @import.module)) @import
; `use a::b::*;` → module `a::b`.
(use_declaration argument: (use_wildcard (_) @import.module)) @import
; `mod foo;` (a file module) and `extern crate foo;`.
(mod_item name: (identifier) @import.module !body) @import
(extern_crate_declaration name: (identifier) @import.module) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((try_expression) @pattern.error_handling (#set! key "propagate:?"))
((macro_invocation macro: [(identifier) (scoped_identifier)] @pattern.key) @pattern.logging
  (#match? @pattern.key "^((log|tracing)::)?(trace|debug|info|warn|error)$")
  (#set! key "log:{}!:plain"))
((attribute_item (attribute [(identifier) (scoped_identifier)] @pattern.key)) @pattern.test
  (#match? @pattern.key "^((tokio|async_std)::)?test$")
  (#set! key "test:#[{}]"))

; Bindings (receivers.rs): names the code gives a type, for calls through
; them (`state.save()` with `state: &IndexState` is `IndexState.save`).
(parameter pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(let_declaration pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(let_declaration
  pattern: (identifier) @binding.name
  value: [(call_expression function: (scoped_identifier path: (_) @binding.type))
          (try_expression (call_expression function: (scoped_identifier path: (_) @binding.type)))
          (struct_expression name: (_) @binding.type)]
  (#match? @binding.type "^([a-z_][a-z0-9_]*::)*[A-Z]")) @binding
(field_declaration name: (field_identifier) @binding.name type: (_) @binding.type) @binding
; A type imported under another name (`use a::Repo as R;`): bindings of `R` are `Repo`'s.
(use_as_clause path: (_) @binding.type alias: (identifier) @binding.name) @binding.alias

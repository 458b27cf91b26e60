; Rust: definitions, impl scopes, calls and imports (captures: see tags.rs).

(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.class
(union_item name: (type_identifier) @name body: (_) @body) @definition.class
(enum_item name: (type_identifier) @name body: (enum_variant_list) @body) @definition.enum
(trait_item name: (type_identifier) @name bounds: (trait_bounds (_) @base)? body: (declaration_list) @body) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.const
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.module
(macro_definition name: (identifier) @name) @definition.function

(impl_item trait: (_) @base type: [(type_identifier) @name (generic_type type: (type_identifier) @name) (scoped_type_identifier name: (type_identifier) @name)] body: (declaration_list) @body) @scope.impl
(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name) (scoped_type_identifier name: (type_identifier) @name)] body: (declaration_list) @body) @scope.impl

(call_expression function: (_) @callee) @reference.call
(macro_invocation macro: (_) @callee) @reference.call

(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list [(identifier) @import.name (scoped_identifier name: (identifier) @import.name) (use_as_clause path: (_) @import.name)]))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module)) @import
(use_declaration argument: (use_wildcard (_) @import.module)) @import
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name))) @import
(mod_item name: (identifier) @import.module !body) @import

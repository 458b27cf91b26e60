; Go: definitions, calls and imports (captures: see tags.rs).

(function_declaration name: (identifier) @name body: (block)? @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; A declaration of one type is the definition (its chunk starts at `type`);
; in a `type ( … )` group each spec is.
(type_declaration . (type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list (field_declaration !name type: (_) @base)?) @body)) .) @definition.class
(type_declaration . (type_spec name: (type_identifier) @name type: (interface_type) @body) .) @definition.interface
(type_declaration . [(type_spec name: (type_identifier) @name) (type_alias name: (type_identifier) @name)] .) @definition.type
(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list (field_declaration !name type: (_) @base)?) @body)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Interface methods.
(method_elem name: (field_identifier) @name) @definition.method

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(call_expression function: (_) @callee) @reference.call

(import_spec name: (package_identifier) @import.name path: (_) @import.module) @import
(import_spec path: (_) @import.module) @import

; TypeScript's own patterns (before ecmascript.scm): classes with
; `extends`/`implements`, interfaces, enums, type aliases, class fields
; holding functions.

(export_statement
  declaration: [(class_declaration
                  name: (_) @name
                  (class_heritage [(extends_clause value: (_) @base)
                                   (implements_clause [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])])?
                  body: (_) @body)
                (abstract_class_declaration
                  name: (_) @name
                  (class_heritage [(extends_clause value: (_) @base)
                                   (implements_clause [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])])?
                  body: (_) @body)]) @definition.class
[(class_declaration
   name: (_) @name
   (class_heritage [(extends_clause value: (_) @base)
                    (implements_clause [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])])?
   body: (_) @body)
 (abstract_class_declaration
   name: (_) @name
   (class_heritage [(extends_clause value: (_) @base)
                    (implements_clause [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])])?
   body: (_) @body)] @definition.class
(export_statement "default" @name value: (class body: (_) @body)) @definition.class
(export_statement
  declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (class body: (_) @body)) @part)) @definition.class
([(lexical_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body)) @part)
  (variable_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body)) @part)]) @definition.class
(expression_statement
  (assignment_expression
    left: [(member_expression) (subscript_expression) (identifier)] @name
    right: (class body: (_) @body))) @definition.class

(export_statement
  declaration: (interface_declaration
    name: (_) @name
    (extends_type_clause type: [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])?
    body: (_) @body)) @definition.interface
(interface_declaration
  name: (_) @name
  (extends_type_clause type: [(type_identifier) @base (nested_type_identifier) @base (generic_type name: (_) @base)])?
  body: (_) @body) @definition.interface
(export_statement declaration: (enum_declaration name: (_) @name body: (_) @body)) @definition.enum
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(export_statement declaration: (type_alias_declaration name: (_) @name)) @definition.type
(type_alias_declaration name: (_) @name) @definition.type

; `handler = () => {…}` in a class body.
(public_field_definition
  name: (_) @name
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) @definition.function

(abstract_class_declaration) @convention

; Bindings (receivers.rs): typed parameters, variables and fields;
; `constructor(private repo: Repo)` binds `repo` on the class too.
(required_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(optional_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(required_parameter (accessibility_modifier) pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.member
(variable_declarator name: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(public_field_definition name: (property_identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding

; C++: definitions, calls and includes (captures: see tags.rs).

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name))
  body: (compound_statement) @body) @definition.method
(function_definition
  declarator: (reference_declarator (function_declarator
    declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (field_identifier) (operator_name)] @name)))
  body: (compound_statement) @body) @definition.method
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (field_identifier) (operator_name)] @name)))
  body: (compound_statement) @body) @definition.method
(function_definition
  declarator: [(function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
               (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))]
  body: (_) @body) @definition.function

; Declarations: prototypes in headers, and member functions declared in a class.
(declaration
  declarator: [(function_declarator declarator: [(identifier) (qualified_identifier)] @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (reference_declarator (function_declarator declarator: (identifier) @name))]) @definition.function
(field_declaration
  declarator: [(function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
               (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.method

(class_specifier name: [(type_identifier) (template_type name: (type_identifier))] @name (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)? body: (field_declaration_list) @body) @definition.class
(struct_specifier name: [(type_identifier) (template_type name: (type_identifier))] @name (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)? body: (field_declaration_list) @body) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.module
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_function_def name: (identifier) @name) @definition.function
(preproc_def name: (identifier) @name) @definition.const

(call_expression function: (_) @callee) @reference.call
(new_expression type: (_) @callee) @reference.call

(preproc_include path: (_) @import.module) @import

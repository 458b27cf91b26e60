; Java: definitions, calls and imports (captures: see tags.rs).

(class_declaration
  name: (identifier) @name
  superclass: (superclass (_) @base)?
  interfaces: (super_interfaces (type_list (_) @base))?
  body: (class_body) @body) @definition.class
(record_declaration name: (identifier) @name interfaces: (super_interfaces (type_list (_) @base))? body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name (extends_interfaces (type_list (_) @base))? body: (interface_body) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name interfaces: (super_interfaces (type_list (_) @base))? body: (enum_body) @body) @definition.enum
(method_declaration name: (identifier) @name body: (block)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.method
(compact_constructor_declaration name: (identifier) @name body: (block) @body) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.const

(method_invocation name: (identifier) @callee) @reference.call
(object_creation_expression type: (_) @callee) @reference.call

(import_declaration (scoped_identifier) @import.module) @import
(import_declaration (identifier) @import.module) @import

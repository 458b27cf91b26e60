; C#: definitions, calls and usings (captures: see tags.rs).

(class_declaration name: (identifier) @name (base_list (_) @base)? body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name (base_list (_) @base)? body: (declaration_list) @body) @definition.class
(record_declaration name: (identifier) @name (base_list (_) @base)? body: (declaration_list)? @body) @definition.class
(interface_declaration name: (identifier) @name (base_list (_) @base)? body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(destructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(property_declaration name: (identifier) @name) @definition.method
(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.module
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.variable

(invocation_expression function: (_) @callee) @reference.call
(object_creation_expression type: (_) @callee) @reference.call

(using_directive (qualified_name) @import.module) @import
(using_directive (identifier) @import.module) @import

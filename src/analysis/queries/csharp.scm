; C#: definitions, calls and usings (captures: see tags.rs).

; Types; the base_list types (base class and interfaces) are bases.
(class_declaration
  name: (identifier) @name
  (base_list [(identifier) (generic_name) (qualified_name)] @base)?
  body: (declaration_list) @body) @definition.class
(struct_declaration
  name: (identifier) @name
  (base_list [(identifier) (generic_name) (qualified_name)] @base)?
  body: (declaration_list) @body) @definition.class
(record_declaration
  name: (identifier) @name
  (base_list [(identifier) @base (generic_name) @base (qualified_name) @base (primary_constructor_base_type type: (_) @base)])?
  body: (declaration_list)? @body) @definition.class
(interface_declaration
  name: (identifier) @name
  (base_list [(identifier) (generic_name) (qualified_name)] @base)?
  body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type

; Members: methods (also `IFoo.M()` explicit implementations, named `M`),
; constructors, destructors, properties and events.
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(destructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(property_declaration name: (identifier) @name accessors: (accessor_list)? @body) @definition.method
(event_declaration name: (identifier) @name accessors: (accessor_list)? @body) @definition.method
(local_function_statement name: (identifier) @name body: (_)? @body) @definition.function

; `const` fields (the first declarator); other fields are not symbols.
(field_declaration
  (modifier) @_const
  (variable_declaration type: (_) . (variable_declarator name: (identifier) @name))
  (#eq? @_const "const")) @definition.const

; `namespace A.B { … }`; a file-scoped `namespace A.B;` is a module too, but
; the declarations after it are its siblings, not its children.
(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

; Calls: the called expression as written (`F`, `obj.M`, `A.B.M<T>`,
; `a?.M`); `new T(…)` gives the type.
(invocation_expression function: (_) @callee) @reference.call
(object_creation_expression type: (_) @callee) @reference.call

; `using A.B;`, `using static A.B;` → module `A.B`; `using X = A.B;` → module
; `A.B`, name X.
(using_directive name: (identifier) @import.name . [(qualified_name) (identifier) (generic_name) (alias_qualified_name)] @import.module) @import
(using_directive !name [(qualified_name) (identifier) (generic_name) (alias_qualified_name)] @import.module) @import
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_clause (catch_declaration type: (_) @pattern.key)) @pattern.error_handling
  (#set! key "except:{}->other"))
((method_declaration (attribute_list (attribute name: (identifier) @pattern.key))) @pattern.test
  (#any-of? @pattern.key "Test" "TestCase" "Fact" "Theory" "TestMethod")
  (#set! key "test:[{}]"))
((invocation_expression function: (member_access_expression expression: (identifier) @_l @pattern.key name: (identifier) @_f @pattern.key)) @pattern.logging
  (#match? @_l "^_?[lL]og(ger)?$")
  (#match? @_f "^Log(Trace|Debug|Information|Warning|Error|Critical)$")
  (#set! key "log:{}:plain"))

; Bindings (receivers.rs): typed parameters, locals, fields and
; properties, for calls through them (`_repo.Save()` is `UserRepo.Save`).
(parameter type: (_) @binding.type name: (identifier) @binding.name) @binding
; A using alias of a type (`using R = App.Repo;`) is read as the type.
(using_directive name: (identifier) @binding.name . [(qualified_name) (identifier) (generic_name)] @binding.type) @binding.alias
(variable_declaration type: (_) @binding.type (variable_declarator name: (identifier) @binding.name)) @binding
(variable_declaration (variable_declarator name: (identifier) @binding.name (object_creation_expression type: (_) @binding.type))) @binding
(property_declaration type: (_) @binding.type name: (identifier) @binding.name) @binding

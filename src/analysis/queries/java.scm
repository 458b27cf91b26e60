; Java: definitions, calls and imports (captures: see tags.rs).

; Types; `extends` and `implements` types are bases, as written (`Comparator<T>`).
(class_declaration
  name: (identifier) @name
  superclass: (superclass (_) @base)?
  interfaces: (super_interfaces (type_list (_) @base))?
  body: (class_body) @body) @definition.class
(record_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))?
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (identifier) @name
  (extends_interfaces (type_list (_) @base))?
  body: (interface_body) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (annotation_type_body) @body) @definition.interface
(enum_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))?
  body: (enum_body) @body) @definition.enum

; Members.
(method_declaration name: (identifier) @name body: (block)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.method
(compact_constructor_declaration name: (identifier) @name body: (block) @body) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method

; Constants: `static final` fields and interface constants (first declarator).
; Instance fields are not symbols.
(field_declaration (modifiers "static" "final") type: (_) . declarator: (variable_declarator name: (identifier) @name)) @definition.const
(field_declaration (modifiers "final" "static") type: (_) . declarator: (variable_declarator name: (identifier) @name)) @definition.const
(constant_declaration type: (_) . declarator: (variable_declarator name: (identifier) @name)) @definition.const

; Calls: `obj.m(…)` gives the method name as @callee and, when there is
; one, the receiver as @callee.object (`obj`, `a.b()`, `this`, `super`);
; `new T(…)` gives the type.
(method_invocation object: (_)? @callee.object name: (identifier) @callee) @reference.call
(object_creation_expression type: (_) @callee) @reference.call
(explicit_constructor_invocation constructor: (_) @callee) @reference.call

; `import a.b.C;`, `import static a.b.C.m;` → the whole name; `import a.b.*;` → `a.b`.
(import_declaration (scoped_identifier) @import.module) @import
(import_declaration (identifier) @import.module) @import
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_clause (catch_formal_parameter (catch_type) @pattern.key)) @pattern.error_handling
  (#set! key "except:{}->other"))
((method_declaration (modifiers [(marker_annotation name: (identifier) @pattern.key) (annotation name: (identifier) @pattern.key)])) @pattern.test
  (#any-of? @pattern.key "Test" "ParameterizedTest" "RepeatedTest" "TestFactory")
  (#set! key "test:@{}"))
((method_invocation object: (identifier) @_l @pattern.key name: (identifier) @_f @pattern.key) @pattern.logging
  (#match? @_l "^(log|logger|LOG|LOGGER)$")
  (#any-of? @_f "trace" "debug" "info" "warn" "error")
  (#set! key "log:{}:plain"))

; Bindings (receivers.rs): typed parameters, locals and fields, for calls
; through them (`repo.save()` with `UserRepo repo` is `UserRepo.save`).
(formal_parameter type: (_) @binding.type name: (identifier) @binding.name) @binding
(local_variable_declaration type: (_) @binding.type declarator: (variable_declarator name: (identifier) @binding.name)) @binding
(local_variable_declaration declarator: (variable_declarator name: (identifier) @binding.name value: (object_creation_expression type: (_) @binding.type))) @binding
(field_declaration type: (_) @binding.type declarator: (variable_declarator name: (identifier) @binding.name)) @binding

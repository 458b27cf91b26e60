; Swift: definitions, extension scopes, calls and imports (captures: see tags.rs).

; Types. The grammar has one `class_declaration` for class, struct, actor,
; enum and extension, told apart by its `declaration_kind` keyword. Inherited
; types and conformed protocols (`: Base, P`) are bases.
(class_declaration
  declaration_kind: ["class" "struct" "actor"]
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @base)?
  body: (class_body) @body) @definition.class
(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @base)?
  body: (enum_class_body) @body) @definition.enum
(protocol_declaration
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @base)?
  body: (protocol_body) @body) @definition.interface

; `extension Foo: P { func bar() }`: not a definition; its members are
; `Foo.bar` (like Rust's impl) and a conformance `P` becomes a base of `Foo`
; when the file defines it. A dotted name keeps its last two parts
; (`extension Application.Clients.Provider` → `Clients.Provider.bar`): the
; extractor takes one node as @scope. The patterns are exclusive by anchors
; so one extension gives one scope.
(class_declaration
  declaration_kind: "extension"
  name: (user_type . (type_identifier) @name .)
  (inheritance_specifier inherits_from: (_) @base)?
  body: (class_body) @body) @scope.impl
(class_declaration
  declaration_kind: "extension"
  name: (user_type . (type_identifier) @name . (type_arguments) .)
  (inheritance_specifier inherits_from: (_) @base)?
  body: (class_body) @body) @scope.impl
(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @scope . (type_identifier) @name .)
  (inheritance_specifier inherits_from: (_) @base)?
  body: (class_body) @body) @scope.impl

; Functions; inside a type, extension or protocol the extractor makes them
; methods. Initializers, deinitializers and subscripts are named by keyword.
; `func f`, `func +`, `static func == (lhs:rhs:)`: the name, an identifier or
; an operator (an anonymous token), follows the keyword; a return type is a
; `name:` too, later. One wildcard: an alternation of 30 operator tokens kept
; 30 states in progress through every function (1 MB of small functions:
; 1.4 s of query, now 0.17 s).
(function_declaration "func" . name: _ @name body: (function_body) @body) @definition.function
(protocol_function_declaration name: [(simple_identifier) (custom_operator)] @name) @definition.function
(init_declaration "init" @name body: (function_body)? @body) @definition.method
(deinit_declaration "deinit" @name body: (function_body) @body) @definition.method
(subscript_declaration "subscript" @name) @definition.method
(macro_declaration "macro" . (simple_identifier) @name) @definition.function

; Type aliases and associated types.
(typealias_declaration name: (type_identifier) @name) @definition.type
(associatedtype_declaration name: (type_identifier) @name) @definition.type

; Stored and computed properties at the top level or in a type body, not
; locals in a function: `let` is a constant, `var` a variable (each name of
; `var a, b: Int`). Destructuring `let (a, b) = …` is left out.
(source_file
  (property_declaration (value_binding_pattern mutability: "let") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.const)
(source_file
  (property_declaration (value_binding_pattern mutability: "var") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(class_body
  (property_declaration (value_binding_pattern mutability: "let") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.const)
(class_body
  (property_declaration (value_binding_pattern mutability: "var") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(enum_class_body
  (property_declaration (value_binding_pattern mutability: "let") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.const)
(enum_class_body
  (property_declaration (value_binding_pattern mutability: "var") name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable

; Calls. `obj.m(…)` gives the method name as @callee and the receiver as
; @callee.object (`foo`, `self`, `Foo`, `a.b()`); `f(…)` and `Foo(…)` the
; name; `.m(…)` (an implicit member) the name. Subscripts (`dict[key]`) share
; the node and are left out: their arguments are in brackets.
(call_expression
  . (navigation_expression target: (_) @callee.object suffix: (navigation_suffix suffix: (simple_identifier) @callee))
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call
(call_expression
  . (simple_identifier) @callee
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call
(call_expression
  . (prefix_expression operation: "." target: (simple_identifier) @callee)
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call

; `import Foundation`, `@testable import Vapor`, `import struct NIO.ByteBuffer`
; (the module path as written).
(import_declaration (identifier) @import.module) @import
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_block error: (pattern name: (user_type) @pattern.key)) @pattern.error_handling
  (#set! key "except:{}->other"))
((catch_block !error) @pattern.error_handling (#set! key "except:*->other"))
((function_declaration (modifiers (attribute (user_type (type_identifier) @pattern.key)))) @pattern.test
  (#eq? @pattern.key "Test")
  (#set! key "test:@{}"))
((function_declaration name: (simple_identifier) @_n) @pattern.test
  (#match? @_n "^test")
  (#set! key "test:XCTest"))
((call_expression . (navigation_expression target: (_) @_l suffix: (navigation_suffix suffix: (simple_identifier) @pattern.key))) @pattern.logging
  (#match? @_l "(^|\\.)(log|logger)$")
  (#any-of? @pattern.key "trace" "debug" "info" "notice" "warning" "error" "critical")
  (#set! key "log:logger.{}:plain"))

; Bindings (receivers.rs): typed parameters and properties, and a property
; bound to `Foo()`, for calls through them (`repo.save()` with
; `repo: UserRepo` is `UserRepo.save`).
; The grammar names a parameter's type and an annotation's type `name`.
(parameter (simple_identifier) @binding.name . [(user_type) (optional_type)] @binding.type) @binding
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @binding.name)
  (type_annotation [(user_type) (optional_type)] @binding.type)) @binding
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @binding.name)
  value: (call_expression . (simple_identifier) @binding.type)
  (#match? @binding.type "^[A-Z]")) @binding

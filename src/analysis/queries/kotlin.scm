; Kotlin: definitions, calls and imports (captures: see tags.rs).

; Types. One node kind for all of them: the keyword or the `enum` modifier
; tells the kind (interface and enum patterns come first, so they win).
; Supertypes are bases, as written (`Base`, `Iface<T>`; `I` of `I by impl`).
(class_declaration
  "interface"
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base) (explicit_delegation (user_type) @base)]))?
  (class_body)? @body) @definition.interface
(class_declaration
  (modifiers (class_modifier "enum"))
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base) (explicit_delegation (user_type) @base)]))?
  (enum_class_body)? @body) @definition.enum
; `class`, `data class`, `sealed class`, `value class`, `annotation class`.
(class_declaration
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base) (explicit_delegation (user_type) @base)]))?
  [(class_body) (enum_class_body)]? @body) @definition.class
; `object O` and `companion object Factory` are singleton classes: their
; members are methods (`O.f`). An unnamed `companion object` is no symbol:
; its members are qualified by the enclosing class (`Foo.create`), as
; Kotlin calls them.
(object_declaration
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base) (explicit_delegation (user_type) @base)]))?
  (class_body)? @body) @definition.class
(companion_object
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier [(user_type) @base (constructor_invocation (user_type) @base) (explicit_delegation (user_type) @base)]))?
  (class_body)? @body) @definition.class

; `typealias Handler<T> = (T) -> Unit`.
(type_alias type: (identifier) @name) @definition.type

; Extension functions `fun Foo.bar()`, `fun <T> List<T>.bar()`, `fun
; String?.bar()`: name bar, scoped by the receiver type (`Foo.bar`).
(function_declaration
  [(user_type) @scope (nullable_type (user_type) @scope)]
  .
  name: (identifier) @name
  (function_body)? @body) @definition.method
; Functions; inside a class, interface, object or enum they are methods.
(function_declaration name: (identifier) @name (function_body)? @body) @definition.function
; Secondary constructors have no name of their own: not symbols.

; Properties. `const val` anywhere (top level, objects) is a constant; an
; extension property `val Foo.bar` is scoped by its receiver.
(property_declaration
  (modifiers (property_modifier "const"))
  (variable_declaration . (identifier) @name)) @definition.const
(property_declaration
  [(user_type) @scope (nullable_type (user_type) @scope)]
  .
  (variable_declaration . (identifier) @name)) @definition.variable
; Top-level properties and the properties of objects (singleton state,
; like Java's static fields). A class's instance properties are not
; symbols, except those computed by a getter (`val isActive get() = …`).
(source_file (property_declaration (variable_declaration . (identifier) @name)) @definition.variable)
(object_declaration (class_body (property_declaration (variable_declaration . (identifier) @name)) @definition.variable))
(companion_object (class_body (property_declaration (variable_declaration . (identifier) @name)) @definition.variable))
(property_declaration (variable_declaration . (identifier) @name) (getter)) @definition.variable

; Calls: the called expression as written (`f`, `Foo`, `obj.f`, `a.b.c`,
; `foo(1).bar`), with or without a trailing lambda.
(call_expression . (_) @callee) @reference.call

; `import a.b.C`, `import a.b.*` (module `a.b`), `import a.b.C as D` (name D).
(import (qualified_identifier) @import.module (identifier) @import.name) @import
(import (qualified_identifier) @import.module) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_block (user_type) @pattern.key) @pattern.error_handling
  (#set! key "except:{}->other"))
((function_declaration (modifiers (annotation (user_type (identifier) @pattern.key)))) @pattern.test
  (#any-of? @pattern.key "Test" "ParameterizedTest" "BeforeTest" "AfterTest")
  (#set! key "test:@{}"))
((call_expression (navigation_expression (identifier) @_l @pattern.key (identifier) @_f @pattern.key)) @pattern.logging
  (#match? @_l "^(log|logger|LOG|LOGGER)$")
  (#any-of? @_f "trace" "debug" "info" "warn" "error")
  (#set! key "log:{}:plain"))

; Bindings (receivers.rs): typed parameters, constructor properties and
; properties, and a property bound to `Foo()`, for calls through them
; (`repo.save()` with `repo: UserRepo` is `UserRepo.save`).
(parameter (identifier) @binding.name . (_) @binding.type) @binding
(class_parameter (identifier) @binding.name . (_) @binding.type) @binding.member
; A type imported under another name (`import a.b.Repo as R`) is read as its own.
(import (qualified_identifier) @binding.type (identifier) @binding.name) @binding.alias
(property_declaration (variable_declaration (identifier) @binding.name . (_) @binding.type)) @binding
(property_declaration
  (variable_declaration (identifier) @binding.name .)
  (call_expression . (identifier) @binding.type)
  (#match? @binding.type "^[A-Z]")) @binding

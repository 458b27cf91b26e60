; Scala (2 and 3): definitions, calls and imports (captures: see tags.rs).

; Types; the types of `extends A with B` (Scala 3 also `extends A, B`) are
; bases, as written (`Base[A]`). Traits are interfaces.
(class_definition
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?
  body: (_)? @body) @definition.class
(trait_definition
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?
  body: (_)? @body) @definition.interface
(enum_definition
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?
  body: (enum_body) @body) @definition.enum
; Scala 3 `case Leaf(v: Int) extends Tree` is a case class; a simple case
; (`case Red, Green`) is a constant and no symbol (as Java's enum constants).
(full_enum_case
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?) @definition.class

; `object O` and `package object p` are modules (the Scala spec's word): a
; companion object `Foo` is told apart from its class `Foo`, and its defs
; are `Foo.apply`.
(object_definition
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?
  body: (_)? @body) @definition.module
(package_object
  name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)] @base)?
  body: (_)? @body) @definition.module

; `type T = …`, `opaque type T = …`, abstract `type T`.
(type_definition name: (type_identifier) @name) @definition.type

; Scala 3 givens: `given ord: Ordering[Int] with { def … }` is an instance
; with members (a class, its type the base); `given x: T = …` a value.
; An anonymous given has no name to index.
(given_definition
  name: (identifier) @name
  [(type_identifier) (generic_type) (stable_type_identifier) (projected_type) (annotated_type) (compound_type)]? @base
  body: (with_template_body) @body) @definition.class
(given_definition name: (identifier) @name) @definition.variable

; Scala 3 `extension (s: String) def shout`: the defs are String's methods
; (`String.shout`), like Rust's `impl`.
(extension_definition
  parameters: (parameters . (parameter type: (_) @name))) @scope.impl

; `def f = …` and abstract `def f: T`; inside a class, trait, enum or given
; they are methods. Auxiliary constructors (`def this(…)`) are not symbols.
((function_definition name: (_) @name body: (_)? @body) @definition.function
  (#not-eq? @name "this"))
(function_declaration name: (_) @name) @definition.function

; Values: at the top level (Scala 3), in objects, package objects and
; traits (the implicit instances mixed into companions); implicit ones
; anywhere in a template. A `val` named in UpperCamelCase is a constant (the
; style guide's constants). A class's other fields are not symbols.
((val_definition pattern: (identifier) @name) @definition.const
  (#match? @name "^[A-Z]")
  (#is? top-level))
((val_definition pattern: (identifier) @name) @definition.variable
  (#is? top-level))
((var_definition pattern: (identifier) @name) @definition.variable
  (#is? top-level))
([(object_definition body: (template_body (val_definition pattern: (identifier) @name) @definition.const))
  (package_object body: (template_body (val_definition pattern: (identifier) @name) @definition.const))
  (trait_definition body: (template_body (val_definition pattern: (identifier) @name) @definition.const))]
  (#match? @name "^[A-Z]"))
[(object_definition body: (template_body
   [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.variable))
 (package_object body: (template_body
   [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.variable))
 (trait_definition body: (template_body
   [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)
    (val_declaration name: (identifier) @name)] @definition.variable))]
(template_body
  (val_definition (modifiers "implicit") pattern: (identifier) @name) @definition.variable)

; Calls: the called expression as written (`f`, `obj.f`, `a.b.f`,
; `f[T]`); `new T(…)` gives the type. A curried call `f(a)(b)` is one call.
(call_expression
  function: [(identifier) (field_expression) (generic_function) (operator_identifier)] @callee) @reference.call
(instance_expression . [(type_identifier) (generic_type) (stable_type_identifier)] @callee) @reference.call

; `import a.b.C`, `import a.b._`, `import a.b.{C, D => E}`, `import a.b.C as
; D`: the last segment is captured and read with the segments before it
; (`a.b.C`, `a.b`); the selected names (or their aliases) are the names.
(import_declaration
  (identifier) @import.module .
  (namespace_selectors [(identifier) @import.name (arrow_renamed_identifier alias: (identifier) @import.name)])) @import
(import_declaration
  (identifier) @import.module .
  (as_renamed_identifier alias: (identifier) @import.name)) @import
(import_declaration
  (identifier) @import.module . [(namespace_wildcard) (namespace_selectors)]? .) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_clause (case_block (case_clause pattern: (typed_pattern type: (_) @pattern.key)))) @pattern.error_handling
  (#set! key "except:{}->other"))
((call_expression
   function: (identifier) @pattern.key
   arguments: (arguments . (string))) @pattern.test
  (#any-of? @pattern.key "test" "property" "it" "describe")
  (#set! key "test:{}"))
((infix_expression left: (string) operator: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "in" "should" "must" "when")
  (#set! key "test:{}"))
((call_expression function: (field_expression value: (identifier) @_l @pattern.key field: (identifier) @_f @pattern.key)) @pattern.logging
  (#match? @_l "^(log|logger|LOG|LOGGER)$")
  (#any-of? @_f "trace" "debug" "info" "warn" "error")
  (#set! key "log:{}:plain"))

; Bindings (receivers.rs): typed parameters, class parameters and values,
; and a value bound to `new Foo(…)` or `Foo(…)`, for calls through them
; (`repo.save()` with `repo: UserRepo` is `UserRepo.save`).
(parameter name: (identifier) @binding.name type: (_) @binding.type) @binding
(class_parameter name: (identifier) @binding.name type: (_) @binding.type) @binding.member
; A type imported under another name (`import a.{Repo => R}`, Scala 3's `import a.Repo as R`) is read as its own.
(import_declaration (namespace_selectors (arrow_renamed_identifier name: (identifier) @binding.type alias: (identifier) @binding.name) @binding.alias))
(import_declaration (as_renamed_identifier name: (identifier) @binding.type alias: (identifier) @binding.name) @binding.alias)
(val_definition pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(var_definition pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(val_definition pattern: (identifier) @binding.name value: (instance_expression . (_) @binding.type)) @binding
(val_definition
  pattern: (identifier) @binding.name
  value: (call_expression function: (identifier) @binding.type)
  (#match? @binding.type "^[A-Z]")) @binding

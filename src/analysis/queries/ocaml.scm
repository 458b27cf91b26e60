; OCaml: implementations (`.ml`) and interfaces (`.mli`, whose grammar has
; the same nodes) (captures: see tags.rs).

; `let f x = …`, `let f = fun x -> …`, `let f = function …`, `let ( +! ) a b
; = …` in a file or a module's `struct`: functions. `let rec f … and g …`
; defines several names (each binding is its @part). A `let` inside an
; expression (`let … in`) is part of its function.
(structure
  (value_definition
    (let_binding pattern: [(value_name) (parenthesized_operator (_))] @name (parameter) body: (_) @body) @part) @definition.function)
(structure
  (value_definition
    (let_binding pattern: [(value_name) (parenthesized_operator (_))] @name body: [(fun_expression) (function_expression)] @body) @part) @definition.function)
((value_definition
  (let_binding pattern: [(value_name) (parenthesized_operator (_))] @name (parameter) body: (_) @body) @part) @definition.function
  (#is? top-level))
((value_definition
  (let_binding pattern: [(value_name) (parenthesized_operator (_))] @name body: [(fun_expression) (function_expression)] @body) @part) @definition.function
  (#is? top-level))
; Any other value a module binds (`let default = { … }`, `let push = add`).
(structure (value_definition (let_binding pattern: (value_name) @name) @part) @definition.const)
((value_definition (let_binding pattern: (value_name) @name) @part) @definition.const
  (#is? top-level))

; `external f : t -> u = "c_name"`; `val f : t -> u` (an interface's or a
; signature's: declared, defined elsewhere), `val x : t`.
(external (value_name) @name) @definition.function
(value_specification [(value_name) (parenthesized_operator (_))] @name type: (function_type)) @definition.function
(value_specification [(value_name) (parenthesized_operator (_))] @name) @definition.const

; Types: a variant is an enum, a record a class; `exception E of t` a type.
(type_definition (type_binding name: (type_constructor) @name body: (variant_declaration)) @part) @definition.enum
(type_definition (type_binding name: (type_constructor) @name body: (record_declaration)) @part) @definition.class
(type_definition (type_binding name: (type_constructor) @name) @part) @definition.type
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type

; Modules and functors (`module M = struct … end`, `module F (X : S) = …`,
; `module M : sig … end` in an interface): their members are `M.f`. A
; module type is an interface of its `val`s.
(module_definition (module_binding (module_name) @name body: (_)? @body) @part) @definition.module
(module_type_definition (module_type_name) @name body: (_)? @body) @definition.interface

; Classes and their methods; `inherit base` makes `base` a base of the class.
(class_definition (class_binding (class_name) @name body: (object_expression (inheritance_definition class: (_) @base)) @body) @part) @definition.class
(class_definition (class_binding (class_name) @name body: (_)? @body) @part) @definition.class
(class_type_definition (class_type_binding (class_type_name) @name) @part) @definition.interface
(method_definition (method_name) @name body: (_) @body) @definition.method
(method_specification (method_name) @name) @definition.method

; Calls as written: `f x`, `List.map f l`, `x |> f`, `f @@ x`,
; `obj#m`, and a functor applied (`Map.Make (String)`).
(application_expression function: (value_path) @callee) @reference.call
(infix_expression operator: (rel_operator) @_op right: (value_path) @callee (#eq? @_op "|>")) @reference.call
(infix_expression left: (value_path) @callee operator: (concat_operator) @_op (#eq? @_op "@@")) @reference.call
(method_invocation object: (_) @callee.object method: (method_name) @callee) @reference.call
(module_application functor: (module_path) @callee) @reference.call

; `open M`, `open! M`, `include M`: the module (`m.ml`); a qualified use
; (`M.f`) names it too, but is a call, not an import.
(open_module module: (_) @import.module) @import
(open_module_signature module: (_) @import.module) @import
(include_module module: (module_path) @import.module) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((try_expression) @pattern.error_handling (#set! key "except:try"))
((application_expression function: (value_path (value_name) @pattern.key)) @pattern.error_handling
  (#any-of? @pattern.key "failwith" "invalid_arg" "raise")
  (#set! key "raise:{}"))

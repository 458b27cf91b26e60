; Julia: modules, types, functions, macros, calls and imports (captures:
; see tags.rs). A docstring (`"""…"""` right above a definition) is its doc
; (`Extracted::leading_doc`).

(module_definition name: (identifier) @name) @definition.module

; `struct P{T} <: AbstractP` (its supertype a base), `mutable struct`,
; `abstract type A end` (an interface of the methods written for it),
; `primitive type Byte 8 end`.
(struct_definition
  (type_head [(identifier) @name
              (parametrized_type_expression . (identifier) @name)
              (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)] (operator) . (_) @base)])) @definition.class
(abstract_definition
  (type_head [(identifier) @name
              (parametrized_type_expression . (identifier) @name)
              (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)] (operator) . (_) @base)])) @definition.interface
(primitive_definition (type_head [(identifier) @name (binary_expression . (identifier) @name)])) @definition.type

; `function f(x)::T … end`, `function Base.push!(q, x) … end` (named as
; written), `function f(x) where {T} … end`; `macro m(ex) … end`.
(function_definition
  (signature [(call_expression . [(identifier) (field_expression)] @name)
              (typed_expression . (call_expression . [(identifier) (field_expression)] @name))
              (where_expression . [(call_expression . [(identifier) (field_expression)] @name)
                                   (typed_expression . (call_expression . [(identifier) (field_expression)] @name))])])) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.function

; The short form `f(x) = …`, `Base.length(q::Queue) = …`, `Queue{T}() where
; {T} = …` (a constructor), also after a macro (`@inline f(x) = …`).
(assignment
  . [(call_expression . [(identifier) @name (field_expression) @name (parametrized_type_expression . (identifier) @name)])
     (typed_expression . (call_expression . [(identifier) (field_expression)] @name))
     (where_expression . [(call_expression . [(identifier) @name (field_expression) @name (parametrized_type_expression . (identifier) @name)])
                          (typed_expression . (call_expression . [(identifier) (field_expression)] @name))])]) @definition.function

; `const LIMIT = 10`.
(const_statement (assignment . (identifier) @name)) @definition.const

; Calls as written (`f(x)`, `Base.h(y)`, `f.(xs)` broadcast); `include` is
; an import.
((call_expression . [(identifier) (field_expression)] @callee) @reference.call
  (#not-eq? @callee "include"))
(broadcast_call_expression . [(identifier) (field_expression)] @callee) @reference.call

; `using A`, `using A: b, c`, `import A.B`, `include("x.jl")`.
(using_statement [(identifier) (scoped_identifier)] @import.module) @import
(using_statement (selected_import . [(identifier) (scoped_identifier)] @import.module (_) @import.name)) @import
(import_statement [(identifier) (scoped_identifier)] @import.module) @import
(import_statement (selected_import . [(identifier) (scoped_identifier)] @import.module)) @import
((call_expression
  . (identifier) @_f
  (argument_list . (string_literal (content) @import.module))) @import
  (#eq? @_f "include"))

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((try_statement) @pattern.error_handling (#set! key "except:try"))
((macrocall_expression (macro_identifier (identifier) @pattern.key)) @pattern.test
  (#any-of? @pattern.key "test" "testset")
  (#set! key "test:@{}"))
((macrocall_expression (macro_identifier (identifier) @pattern.key)) @pattern.logging
  (#any-of? @pattern.key "debug" "info" "warn" "error")
  (#set! key "log:@{}:plain"))

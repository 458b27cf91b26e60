; Haskell: definitions, instance scopes, calls and imports (captures: see tags.rs).

; Functions and values. The grammar has no node for a whole function: its
; type signature and each equation (`function` with arguments, `bind`
; without) are sibling nodes of the same name. Each is captured, in a module
; (`declarations`), a class (default methods) or an instance; the Haddock
; comment (`-- |`, node `haddock`) sits above the signature. Equations in
; `where`/`let` are left to their function.
(declarations
  (signature name: [(variable) @name (prefix_id (_) @name)]) @definition.function)
(declarations
  (signature names: (binding_list name: (variable) @name)) @definition.function)
(class_declarations
  (signature name: [(variable) @name (prefix_id (_) @name)]) @definition.function)
(class_declarations
  (signature names: (binding_list name: (variable) @name)) @definition.function)
(declarations
  [(function name: [(variable) @name (prefix_id (_) @name)])
   (bind name: [(variable) @name (prefix_id (_) @name)])
   ; x `op` y = …, a <+> b = …
   (function (infix operator: [(operator) @name (infix_id (variable) @name)]))] @definition.function)
(class_declarations
  [(function name: [(variable) @name (prefix_id (_) @name)])
   (bind name: [(variable) @name (prefix_id (_) @name)])
   (function (infix operator: [(operator) @name (infix_id (variable) @name)]))] @definition.function)
(instance_declarations
  [(function name: [(variable) @name (prefix_id (_) @name)])
   (bind name: [(variable) @name (prefix_id (_) @name)])
   (function (infix operator: [(operator) @name (infix_id (variable) @name)]))] @definition.function)
(foreign_import signature: (signature name: (variable) @name)) @definition.function
; `pattern P :: T` and `pattern P = …` (bidirectional pattern synonyms).
(pattern_synonym [(signature synonym: (constructor) @name) (equation synonym: (constructor) @name)]) @definition.function

; Data types: an enumeration when no constructor has a field (`data Color =
; Red | Green`), else a class (constructors with fields, records, GADTs,
; newtypes, empty data).
(data_type
  name: (name) @name
  constructors: (data_constructors
    (data_constructor constructor: [(prefix field: (_)) (record) (infix)]))) @definition.class
(data_type name: (name) @name constructors: (data_constructors) @body) @definition.enum
(data_type name: (name) @name) @definition.class
(newtype name: (name) @name) @definition.class
(data_family name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type

; A type class is an interface of its method signatures; the classes of its
; context (`class (Eq a, Show a) => C a`) are its bases.
(class
  context: (context context: [(apply constructor: [(name) (qualified)] @base)
                              (tuple (apply constructor: [(name) (qualified)] @base))])?
  name: (name) @name
  declarations: (class_declarations)? @body) @definition.interface

; `instance C T where …`: like Rust's `impl C for T`, its methods are `T.m`
; and C becomes a base of T when the file defines T (`T` in `C (T a)`,
; `C [T]` has none).
(instance
  name: [(name) (qualified)] @base
  patterns: (type_patterns . [(name) @name
                              (qualified id: (name) @name)
                              (parens type: [(name) @name
                                             (qualified id: (name) @name)
                                             (apply constructor: [(name) @name (qualified id: (name) @name)])
                                             (apply constructor: (apply constructor: [(name) @name (qualified id: (name) @name)]))
                                             (apply constructor: (apply constructor: (apply constructor: [(name) @name (qualified id: (name) @name)])))])])
  declarations: (instance_declarations)? @body) @scope.impl

; Calls: the head of an application (`f x y`, `M.f x`; the innermost
; `apply` holds it), `f $ x`, and x `f` y. Constructors (`Just x`, also in
; patterns) are not calls.
(apply function: [(variable) (qualified id: (variable))] @callee) @reference.call
(infix
  left_operand: [(variable) (qualified id: (variable))] @callee
  operator: (operator) @_op
  (#any-of? @_op "$" "$!" "<$>" "<&>" "=<<" ">>=")) @reference.call
(infix operator: (infix_id [(variable) (qualified id: (variable))] @callee)) @reference.call

; Imports: `import qualified Data.Map as M`, `import Data.List (sortBy)`
; → module, and the names of an import list (not of a `hiding` list).
((import
  module: (module) @import.module
  names: (import_list
    (import_name [(variable) (name) (prefix_id)] @import.name))?) @import
  (#not-match? @import "^import\\s[^(]*\\bhiding\\b"))
(import module: (module) @import.module) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((apply function: (variable) @pattern.key) @pattern.error_handling
  (#any-of? @pattern.key "catch" "handle" "try" "bracket" "finally" "throwIO" "throwError" "catchError")
  (#set! key "except:{}"))
((apply function: (variable) @pattern.key) @pattern.test
  (#any-of? @pattern.key "describe" "it" "testCase" "testProperty" "testGroup" "prop")
  (#set! key "test:{}"))

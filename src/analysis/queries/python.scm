; Python: definitions, calls and imports (captures: see tags.rs).

; Definitions. A decorated definition's chunk starts at its first decorator
; (the statement-level node). `docstring`: a body whose first statement is an
; `expression_statement` of a `string` has that string as its doc (read by
; tags.rs: as a pattern, it doubled the query's compile time, which every
; one-file commit pays, or matched every block of the file).
((decorated_definition
  definition: (class_definition
    name: (identifier) @name
    superclasses: (argument_list [(identifier) (attribute) (subscript)] @base)?
    body: (block) @body)) @definition.class
  (#set! docstring "expression_statement string"))
((decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body)) @definition.function
  (#set! docstring "expression_statement string"))
((class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @base)?
  body: (block) @body) @definition.class
  (#set! docstring "expression_statement string"))
((function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function
  (#set! docstring "expression_statement string"))

; Module-level assignments: `NAME = …` is a constant, `name = …` a variable.
((expression_statement (assignment left: (identifier) @name)) @definition.const
  (#match? @name "^[^a-z]*[A-Z][^a-z]*$")
  (#is? top-level))
((expression_statement (assignment left: (identifier) @name)) @definition.variable
  (#is? top-level))

; Calls: the called expression as written (`f`, `self.x.y`, `a.b().c`).
(call function: (_) @callee) @reference.call @convention

; Nodes whose conventions are read from the tree (patterns::TreeMarker):
; decorators, handlers, tests, base classes; and the calls above (logging).
[(decorator) (except_clause) (function_definition) (class_definition)] @convention

; Imports. `import a.b, c as d` → modules `a.b` and `c`.
(import_statement name: [(dotted_name) @import.module (aliased_import name: (_) @import.module)]) @import
; `from .x import y as z, w` → module `.x`, names y, w; `from x import *` → name `*`.
(import_from_statement
  module_name: (_) @import.module
  name: [(dotted_name) @import.name (aliased_import name: (_) @import.name)]) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.name) @import
(future_import_statement
  "__future__" @import.module
  name: [(dotted_name) @import.name (aliased_import name: (_) @import.name)]) @import

; Bindings (receivers.rs): names the code gives a type, for calls through
; them (`repo.save()` with `repo: Repo` or `repo = Repo()` is `Repo.save`).
(typed_parameter (identifier) @binding.name type: (type) @binding.type) @binding
(typed_default_parameter name: (identifier) @binding.name type: (type) @binding.type) @binding
(assignment left: (identifier) @binding.name type: (type) @binding.type) @binding
(assignment
  left: (identifier) @binding.name
  right: (call function: [(identifier) (attribute)] @binding.type)
  (#match? @binding.type "^([A-Za-z_][A-Za-z0-9_]*\\.)*[A-Z][A-Za-z0-9_]*$")) @binding
; `self.repo = Repo()` and `self.repo: Repo = …` in a method bind on the class.
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @binding.name)
  type: (type) @binding.type
  (#eq? @_self "self")) @binding.member
; A class imported under another name (`from a import Repo as R`): bindings of `R` are `Repo`'s.
(import_from_statement name: (aliased_import name: (dotted_name) @binding.type alias: (identifier) @binding.name) @binding.alias)
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @binding.name)
  right: (call function: [(identifier) (attribute)] @binding.type)
  (#eq? @_self "self")
  (#match? @binding.type "^([A-Za-z_][A-Za-z0-9_]*\\.)*[A-Z][A-Za-z0-9_]*$")) @binding.member

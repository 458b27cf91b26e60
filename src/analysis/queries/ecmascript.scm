; JavaScript and TypeScript (both grammars): definitions, calls and imports
; (captures: see tags.rs). Grammar-specific patterns (classes and their
; heritage, fields, TypeScript's declarations) are in javascript.scm and
; typescript.scm, which come first. A definition behind `export` has the
; export statement as its chunk; so the exported form of each pattern comes
; before the plain one.

; Functions.
(export_statement
  declaration: [(function_declaration name: (_) @name body: (_) @body)
                (generator_function_declaration name: (_) @name body: (_) @body)]) @definition.function
[(function_declaration name: (_) @name body: (_) @body)
 (generator_function_declaration name: (_) @name body: (_) @body)] @definition.function

; `export default function () {}` is named `default`.
(export_statement
  value: [(function_expression name: (_) @name body: (_) @body)
          (generator_function name: (_) @name body: (_) @body)]) @definition.function
(export_statement
  "default" @name
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) @definition.function

; `const f = () => …`, `var g = function () {…}` anywhere; one statement may
; define several names (each declarator is its @part).
(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
              (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])
              (assignment_expression right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])]) @part)) @definition.function
([(lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
              (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])
              (assignment_expression right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])]) @part)
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
              (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])
              (assignment_expression right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])]) @part)]) @definition.function

; `res.send = function send() {…}`, `exports.f = () => …`, `a = b = function …`
; anywhere: named by the assigned expression as written.
(expression_statement
  (assignment_expression
    left: [(member_expression) (subscript_expression) (identifier)] @name
    right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
            (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])
            (assignment_expression right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])])) @definition.function

; `defineGetter(req, 'protocol', function protocol() {…})`, `app.use(function
; logger(…) {…})`: a named function handed to a call at module level is
; defined there, by its own name.
((expression_statement
  (call_expression
    arguments: (arguments (function_expression name: (identifier) @name body: (_) @body)))) @definition.function
  (#is? top-level))

; Object-literal methods: `{ f() {}, g: function () {}, 'h': () => … }`.
(pair
  key: [(property_identifier) (private_property_identifier) (number) (computed_property_name)] @name
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
          (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])]) @definition.function
(pair
  key: (string (string_fragment) @name)
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)
          (parenthesized_expression [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])]) @definition.function

; Class members (methods inside a class).
(method_definition name: (_) @name body: (_) @body) @definition.function

; Module-level values: `export const X = …` (an export is module-level
; wherever the parser put it), `let y = …`, `exports.z = …`.
(export_statement
  declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @part)) @definition.const
(export_statement
  declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @part)
                (variable_declaration (variable_declarator name: (identifier) @name) @part)]) @definition.variable
((lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @part) @definition.const
  (#is? top-level))
([(lexical_declaration (variable_declarator name: (identifier) @name) @part)
  (variable_declaration (variable_declarator name: (identifier) @name) @part)] @definition.variable
  (#is? top-level))
((expression_statement (assignment_expression left: (member_expression) @name)) @definition.variable
  (#is? top-level))

; Calls: the called expression as written; `require('x')` is an import.
((call_expression function: (_) @callee) @reference.call @convention
  (#not-eq? @callee "require"))
(new_expression constructor: (_) @callee) @reference.call

; Nodes whose conventions are read from the tree (patterns::TreeMarker):
; decorators, handlers, base classes; and the calls above (logging, routes, tests).
[(decorator) (catch_clause) (class_declaration) (class)] @convention

; Imports: `import d, { a, b as c } from 'm'` → module `m`, names d, a, b;
; `import * as ns from 'm'` → name `*`; re-exports `export { a } from 'm'`.
(import_statement source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause
    [(identifier) @import.name
     (named_imports (import_specifier name: (_) @import.name))
     (namespace_import "*" @import.name)])
  source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name))
  source: (string (string_fragment) @import.module)) @import
((call_expression
   function: (identifier) @_f
   arguments: (arguments . (string (string_fragment) @import.module)))
  (#eq? @_f "require")) @import

; Bindings (receivers.rs): a variable bound to `new Foo()`, for calls
; through it (`db.query()` is `Db.query`).
(variable_declarator name: (identifier) @binding.name value: (new_expression constructor: [(identifier) (member_expression)] @binding.type)) @binding
; A type imported under another name (`import { Repo as R }`): bindings of `R` are `Repo`'s.
(import_specifier name: (identifier) @binding.type alias: (identifier) @binding.name) @binding.alias

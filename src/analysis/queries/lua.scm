; Lua: definitions, calls and requires (captures: see tags.rs).

; `function f()` and `local function f()`.
(function_declaration name: (identifier) @name body: (block)? @body) @definition.function
; `function M.f()`, `function M.sub.f()`: scoped by the table (`M`, `M.sub`).
(function_declaration
  name: (dot_index_expression table: (_) @scope field: (identifier) @name)
  body: (block)? @body) @definition.function
; `function M:f()` takes `self`: a method of M.
(function_declaration
  name: (method_index_expression table: (_) @scope method: (identifier) @name)
  body: (block)? @body) @definition.method

; `local f = function() end`, `f = function() end`, `M.f = function() end`
; (the first name and the first value).
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition body: (block)? @body)))) @definition.function
(assignment_statement
  (variable_list . name: (dot_index_expression table: (_) @scope field: (identifier) @name))
  (expression_list . value: (function_definition body: (block)? @body))) @definition.function
(assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_definition body: (block)? @body))) @definition.function

; `local M = { f = function() end }`: f scoped by M; in any other table
; constructor, by nothing.
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @scope)
    (expression_list . value: (table_constructor
      (field name: (identifier) @name value: (function_definition body: (block)? @body)) @definition.function))))
(field name: (identifier) @name value: (function_definition body: (block)? @body)) @definition.function

; `require("x")`, `require "x"`, `require 'x'` → module x.
(function_call
  name: (identifier) @_r
  arguments: (arguments . (string content: (string_content) @import.module))
  (#eq? @_r "require")) @import

; Calls: the called expression as written (`f`, `M.f`, `obj:m`); requires
; are imports.
(function_call name: (_) @callee (#not-match? @callee "^require$")) @reference.call
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((function_call name: (identifier) @pattern.key) @pattern.error_handling
  (#any-of? @pattern.key "pcall" "xpcall")
  (#set! key "protected:{}"))
((function_call name: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "describe" "it")
  (#set! key "test:{}"))

; Ruby: definitions, calls and requires (captures: see tags.rs).

(class name: [(constant) (scope_resolution)] @name superclass: (superclass (_) @base)? body: (body_statement)? @body) @definition.class
(singleton_class value: (_) @name body: (body_statement)? @body) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (body_statement)? @body) @definition.module
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(program (assignment left: (constant) @name) @definition.const)
(body_statement (assignment left: (constant) @name) @definition.const)

(call method: (identifier) @_m arguments: (argument_list . (string (string_content) @import.module))
  (#any-of? @_m "require" "require_relative" "load")) @import

(call receiver: (_) method: (identifier) @callee) @reference.call
(call !receiver method: (identifier) @callee) @reference.call

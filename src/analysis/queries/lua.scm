; Lua: definitions, calls and requires (captures: see tags.rs).

(function_declaration name: (identifier) @name body: (block)? @body) @definition.function
(function_declaration name: (dot_index_expression table: (_) @scope field: (identifier) @name) body: (block)? @body) @definition.function
(function_declaration name: (method_index_expression table: (_) @scope method: (identifier) @name) body: (block)? @body) @definition.method
(variable_declaration (assignment_statement (variable_list . name: (identifier) @name) (expression_list . value: (function_definition body: (block)? @body)))) @definition.function
(assignment_statement (variable_list . name: (dot_index_expression table: (_) @scope field: (identifier) @name)) (expression_list . value: (function_definition body: (block)? @body))) @definition.function
(assignment_statement (variable_list . name: (identifier) @name) (expression_list . value: (function_definition body: (block)? @body))) @definition.function

(function_call name: (identifier) @_r arguments: (arguments . (string content: (string_content) @import.module)) (#eq? @_r "require")) @import

(function_call name: (_) @callee) @reference.call

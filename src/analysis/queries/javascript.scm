; JavaScript's own patterns (before ecmascript.scm): classes with their
; `extends` expression, class fields holding functions.

(export_statement
  declaration: (class_declaration name: (_) @name (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body)) @definition.class
(class_declaration name: (_) @name (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body) @definition.class
(export_statement "default" @name value: (class (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body)) @definition.class
(export_statement
  declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (class (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body)) @part)) @definition.class
([(lexical_declaration (variable_declarator name: (identifier) @name value: (class (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body)) @part)
  (variable_declaration (variable_declarator name: (identifier) @name value: (class (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body)) @part)]) @definition.class
(expression_statement
  (assignment_expression
    left: [(member_expression) (subscript_expression) (identifier)] @name
    right: (class (class_heritage [(parenthesized_expression [(identifier) (member_expression)] @base) (identifier) @base (member_expression) @base (call_expression) @base (subscript_expression) @base])? body: (_) @body))) @definition.class

; `handler = () => {…}` in a class body.
(field_definition
  property: (_) @name
  value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) @definition.function

; Dart: classes, mixins, extensions, enums, members, functions, calls and
; imports (captures: see tags.rs). A member is wrapped in a
; `member_declaration` whose siblings are its `///` doc comments.

(class_declaration
  name: (identifier) @name
  superclass: (superclass type: (type . (type_identifier) @base) (mixins (type . (type_identifier) @base))?)?
  interfaces: (interfaces (type . (type_identifier) @base))?
  body: (class_body) @body) @definition.class
(mixin_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(extension_declaration name: (identifier) @name body: (extension_body) @body) @definition.class
(extension_type_declaration name: (extension_type_name (identifier) @name)) @definition.class
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(type_alias (type_identifier) @name) @definition.type

; Methods, getters, setters and operators with a body; abstract ones.
(member_declaration
  (method_declaration
    signature: (method_signature
      [(function_signature name: (identifier) @name)
       (getter_signature name: (identifier) @name)
       (setter_signature name: (identifier) @name)
       (operator_signature operator: (_) @name)])
    body: (function_body) @body)) @definition.method
(member_declaration
  (declaration [(function_signature name: (identifier) @name) (getter_signature name: (identifier) @name)])) @definition.method

; Constructors: `A(…)` is `A.A`, `A.named(…)` and `factory A.parse(…)` are
; `A.named` and `A.parse`.
(member_declaration
  (_ [(constructor_signature name: (identifier) name: (identifier) @name)
      (constant_constructor_signature name: (identifier) name: (identifier) @name)
      (factory_constructor_signature name: (identifier) name: (identifier) @name)
      (redirecting_factory_constructor_signature name: (identifier) name: (identifier) @name)])) @definition.method
(member_declaration
  (_ [(constructor_signature . name: (identifier) @name . parameters: (_))
      (constant_constructor_signature . name: (identifier) @name . parameters: (_))
      (factory_constructor_signature . name: (identifier) @name . parameters: (_))])) @definition.method
; With a body (`factory A.parse(…) { … }`).
(member_declaration
  (method_declaration
    signature: (method_signature
      [(constructor_signature name: (identifier) name: (identifier) @name)
       (factory_constructor_signature name: (identifier) name: (identifier) @name)])
    body: (function_body) @body)) @definition.method
(member_declaration
  (method_declaration
    signature: (method_signature
      [(constructor_signature . name: (identifier) @name . parameters: (_))
       (factory_constructor_signature . name: (identifier) @name . parameters: (_))])
    body: (function_body) @body)) @definition.method

; Fields (`final name = 'posix';`, `static int count = 0;`).
(member_declaration
  (declaration
    [(initialized_identifier_list (initialized_identifier name: (identifier) @name))
     (static_final_declaration_list (static_final_declaration name: (identifier) @name))])) @definition.variable

; Top-level functions, getters, setters and variables.
(function_declaration signature: (function_signature name: (identifier) @name) body: (function_body) @body) @definition.function
(getter_declaration signature: (getter_signature name: (identifier) @name)) @definition.function
(setter_declaration signature: (setter_signature name: (identifier) @name)) @definition.function
(top_level_variable_declaration
  [(static_final_declaration_list (static_final_declaration name: (identifier) @name))
   (initialized_identifier_list (initialized_identifier name: (identifier) @name))]) @definition.variable

; Calls as written: `f(x)`, `obj.m(x)`, `obj?.m()`, `A<int>(1)`, a cascade's `..m()`.
(call_expression function: [(identifier) (member_expression) (null_aware_member_expression)] @callee) @reference.call
(call_expression function: (instantiation_expression function: (_) @callee)) @reference.call
(cascade_call_expression property: (identifier) @callee) @reference.call

; `import 'a.dart'`, `import 'package:p/a.dart' as p`, `export`, `part`.
(library_import (import_specification uri: (configurable_uri (uri (string_literal) @import.module)))) @import
(library_export uri: (configurable_uri (uri (string_literal) @import.module))) @import
(part_directive uri: (uri (string_literal) @import.module)) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((try_statement) @pattern.error_handling (#set! key "except:try"))
((call_expression function: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "test" "group" "testWidgets")
  (#set! key "test:{}"))

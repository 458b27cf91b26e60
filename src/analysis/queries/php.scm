; PHP: definitions, calls and imports (captures: see tags.rs).

; Namespaces. `namespace A\B;` is a module symbol, but the declarations after
; it are its siblings, not its children, and names are not qualified by it
; (`Collection::make`, not `Illuminate\Support\Collection::make`), as with
; C#'s file-scoped namespaces. The rare braced `namespace A\B { … }` is left
; out so its classes get the same names as under the statement form.
(namespace_definition name: (namespace_name) @name !body) @definition.module

; Types. `extends` and `implements` types and the traits a body `use`s are
; bases, as written (`BaseCollection`, `\ArrayAccess`, `Macroable`).
(class_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @base)?
  (class_interface_clause [(name) (qualified_name)] @base)?
  body: (declaration_list (use_declaration [(name) (qualified_name)] @base)?) @body) @definition.class
(interface_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @base)?
  body: (declaration_list) @body) @definition.interface
; A trait carries implementations (a mixin): a class, not a declaration.
(trait_declaration
  name: (name) @name
  body: (declaration_list (use_declaration [(name) (qualified_name)] @base)?) @body) @definition.class
(enum_declaration
  name: (name) @name
  (class_interface_clause [(name) (qualified_name)] @base)?
  body: (enum_declaration_list (use_declaration [(name) (qualified_name)] @base)?) @body) @definition.enum

; Functions and methods (abstract and interface methods have no body). A
; function declared in a block (`if (! function_exists('f')) { function f() }`)
; is still a function.
(method_declaration name: (name) @name body: (compound_statement)? @body) @definition.method
(function_definition name: (name) @name body: (compound_statement) @body) @definition.function

; Constants: `const A = 1, B = 2;` at the top level or in a class, interface,
; trait or enum (each name), and `define('NAME', …)` as a statement.
(const_declaration (const_element (name) @name) @part) @definition.const
(expression_statement
  (function_call_expression
    function: (name) @_f
    arguments: (arguments . (argument (string (string_content) @name))))
  (#eq? @_f "define")) @definition.const

; Calls. `f()`, `\A\f()`, `$fn()` as written; `$obj->m()`, `$obj?->m()` and
; `Foo::m()` give the method name as @callee and the receiver as
; @callee.object (`$this->items`, `Str`, `self`, `parent`); `new Foo` the class.
(function_call_expression function: (_) @callee) @reference.call
(member_call_expression object: (_) @callee.object name: (name) @callee) @reference.call
(nullsafe_member_call_expression object: (_) @callee.object name: (name) @callee) @reference.call
(scoped_call_expression scope: (_) @callee.object name: (name) @callee) @reference.call
(object_creation_expression [(name) (qualified_name) (variable_name)] @callee) @reference.call

; Imports. `use A\B\C;`, `use A\B\C as D;`, `use function A\f;`,
; `use const A\X;` → module `A\B\C` (the whole name, one per clause);
; `use A\{B, C\D};` → module `A`, names `B`, `C\D`.
(namespace_use_declaration
  (namespace_use_clause . [(name) (qualified_name)] @import.module)) @import
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group (namespace_use_clause [(name) (qualified_name)] @import.name))) @import
; `require_once 'x.php'` and the like with a plain string path.
(expression_statement
  [(require_expression (string (string_content) @import.module))
   (require_once_expression (string (string_content) @import.module))
   (include_expression (string (string_content) @import.module))
   (include_once_expression (string (string_content) @import.module))]) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((catch_clause type: (type_list (named_type (_) @pattern.key))) @pattern.error_handling
  (#set! join "|")
  (#set! key "except:{}->other"))
((method_declaration name: (name) @_n) @pattern.test
  (#match? @_n "^test")
  (#set! key "test:phpunit"))
((method_declaration attributes: (attribute_list (attribute_group (attribute (name) @pattern.key)))) @pattern.test
  (#eq? @pattern.key "Test")
  (#set! key "test:#[{}]"))
((function_call_expression function: (name) @pattern.key) @pattern.test
  (#any-of? @pattern.key "test" "it" "describe")
  (#set! key "test:{}"))
((scoped_call_expression scope: (name) @_l name: (name) @pattern.key) @pattern.logging
  (#eq? @_l "Log")
  (#any-of? @pattern.key "debug" "info" "notice" "warning" "error" "critical" "alert" "emergency")
  (#set! key "log:Log::{}:plain"))
((member_call_expression object: (_) @_l name: (name) @pattern.key) @pattern.logging
  (#match? @_l "(^|->)(\\$?logger|logger\\(\\))$")
  (#any-of? @pattern.key "debug" "info" "notice" "warning" "error" "critical" "alert" "emergency")
  (#set! key "log:logger->{}:plain"))

; Bindings (receivers.rs): typed parameters and properties, promoted
; constructor parameters, `$x = new Foo()`, for calls through them
; (`$this->repo->save()` with `private UserRepo $repo` is `UserRepo.save`).
(simple_parameter type: (_) @binding.type name: (variable_name) @binding.name) @binding
(property_promotion_parameter type: (_) @binding.type name: (variable_name (name) @binding.name)) @binding.member
; A class imported under another name (`use App\Repo as R;`) is read as its own.
(namespace_use_clause [(name) (qualified_name)] @binding.type alias: (name) @binding.name) @binding.alias
(property_declaration type: (_) @binding.type (property_element name: (variable_name (name) @binding.name))) @binding
(assignment_expression left: (variable_name) @binding.name right: (object_creation_expression [(name) (qualified_name)] @binding.type)) @binding

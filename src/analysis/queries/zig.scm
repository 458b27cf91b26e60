; Zig: definitions, calls and imports (captures: see tags.rs).

; A function returning `type` is a generic type (`fn ArrayList(comptime T:
; type) type { return struct { … }; }`): a class holding the members of the
; struct it returns.
((function_declaration name: (identifier) @name type: (builtin_type) @_t body: (block) @body) @definition.class
  (#eq? @_t "type"))
; Functions (`pub`, `export`, `inline`, `extern` without a body); inside a
; container they are its methods.
(function_declaration name: (identifier) @name body: (block)? @body) @definition.function

; `const X = struct { … }`: a type is a value bound to a name; its
; declarations and methods nest in it (`packed`/`extern` layouts included).
(variable_declaration . (identifier) @name [(struct_declaration) (union_declaration) (opaque_declaration)] @body) @definition.class
(variable_declaration . (identifier) @name [(enum_declaration) (error_set_declaration)] @body) @definition.enum

; `test "name" { … }` is a function named by its string; `test decl { … }`
; (a doctest of `decl`) and `test { … }` define no name.
(test_declaration (string (string_content) @name) (block) @body) @definition.function

; Imports. `const std = @import("std");` → module std;
; `const Foo = @import("foo.zig").Foo;` → module foo.zig, name Foo.
(variable_declaration
  (identifier)
  (builtin_function
    (builtin_identifier) @_b
    (arguments . (string (string_content) @import.module)))
  (#eq? @_b "@import")) @import
(variable_declaration
  (identifier)
  (field_expression
    object: (builtin_function
      (builtin_identifier) @_b
      (arguments . (string (string_content) @import.module)))
    member: (identifier) @import.name)
  (#eq? @_b "@import")) @import
; A file-level alias of a declaration elsewhere, `const Allocator =
; std.mem.Allocator;`, is how Zig imports a name: module std.mem, name Allocator.
(source_file
  (variable_declaration
    !type
    (identifier)
    (field_expression object: (_) @import.module member: (identifier) @import.name) @_v .
    (#match? @_v "^[A-Za-z_][A-Za-z0-9_.]*$")) @import)

; Type aliases: `const Id = u32;`, `const Fn = *const fn () void;`,
; `const List = std.ArrayList(u8);` (a type-returning call to a TitleCase name).
(variable_declaration
  !type
  (identifier) @name .
  [(builtin_type) (pointer_type) (slice_type) (nullable_type) (array_type) (error_union_type)] .) @definition.type
((variable_declaration
  !type
  (identifier) @name .
  (call_expression) .) @definition.type
  (#match? @name "^[A-Z]"))

; Constants and variables of a file (other than imports and aliases) or of
; a container (not locals of a function; not `const Self = @This();`).
(variable_declaration "const" . (identifier) @name (_) @_v .
  (#not-match? @_v "^(@import|@This\\(\\)$|[A-Za-z_][A-Za-z0-9_.]*$)")
  (#is? top-level)) @definition.const
(variable_declaration "var" . (identifier) @name (#is? top-level)) @definition.variable
([(struct_declaration (variable_declaration "const" . (identifier) @name (_) @_v .) @definition.const)
  (union_declaration (variable_declaration "const" . (identifier) @name (_) @_v .) @definition.const)
  (enum_declaration (variable_declaration "const" . (identifier) @name (_) @_v .) @definition.const)
  (opaque_declaration (variable_declaration "const" . (identifier) @name (_) @_v .) @definition.const)]
  (#not-match? @_v "^(@import|@This\\(\\)$)"))
[(struct_declaration (variable_declaration "var" . (identifier) @name) @definition.variable)
 (union_declaration (variable_declaration "var" . (identifier) @name) @definition.variable)
 (enum_declaration (variable_declaration "var" . (identifier) @name) @definition.variable)
 (opaque_declaration (variable_declaration "var" . (identifier) @name) @definition.variable)]

; Calls: the called expression as written (`f`, `std.debug.print`,
; `list.append`, `std.ArrayList(u8).init`). Builtins (`@intCast`) are not calls.
(call_expression function: (_) @callee) @reference.call

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((try_expression) @pattern.error_handling (#set! key "propagate:try"))
((catch_expression) @pattern.error_handling (#set! key "catch:catch"))
((test_declaration) @pattern.test (#set! key "test:zig"))
((call_expression
  function: (field_expression object: (_) @_l member: (identifier) @pattern.key)) @pattern.logging
  (#match? @_l "(^|\\.)log$")
  (#any-of? @pattern.key "err" "warn" "info" "debug")
  (#set! key "log:log.{}:plain"))

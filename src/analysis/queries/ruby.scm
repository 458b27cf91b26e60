; Ruby: definitions, calls and requires (captures: see tags.rs).

; `class A < B`, `class Outer::A < B` (name A, scope Outer).
(class
  name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)]
  superclass: (superclass (_) @base)?
  body: (body_statement)? @body) @definition.class
(module
  name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)]
  body: (body_statement)? @body) @definition.module

; `def m` and `def self.m` (the extractor names them `A#m` and `A.m`). The
; methods of a `class << self` block are not told apart from instance ones.
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method

; Constants assigned at the top level or in a class or module body.
(program (assignment left: (constant) @name) @definition.const)
(body_statement (assignment left: (constant) @name) @definition.const)

; `require 'x'`, `require_relative "x"`, `load 'x'` with a plain string.
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list . (string . (string_content) @import.module .))
  (#any-of? @_m "require" "require_relative" "load")) @import

; Calls: the method name as @callee and the receiver, when there is one, as
; @callee.object (`Foo::Bar.new` → `new`, `Foo::Bar`). Requires are imports.
(call receiver: (_) @callee.object method: (_) @callee) @reference.call
(call
  !receiver
  method: (identifier) @callee
  (#not-match? @callee "^(require|require_relative|load)$")) @reference.call
; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((rescue exceptions: (exceptions (_) @pattern.key)) @pattern.error_handling
  (#set! join "|")
  (#set! key "except:{}->other"))
((call !receiver method: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "describe" "context" "it" "specify")
  (#set! key "test:{}"))
((method name: (identifier) @_n) @pattern.test
  (#match? @_n "^test_")
  (#set! key "test:method"))
((call receiver: (_) @_r method: (identifier) @pattern.key) @pattern.logging
  (#match? @_r "logger$")
  (#any-of? @pattern.key "debug" "info" "warn" "error" "fatal")
  (#set! key "log:logger.{}:plain"))

; Bindings (receivers.rs): a variable or instance variable bound to
; `Foo.new`, for calls through it (`@repo.save` with `@repo = Repo.new`
; in `initialize` is `Repo.save`). An instance variable binds on the class.
(assignment
  left: (identifier) @binding.name
  right: (call receiver: [(constant) (scope_resolution)] @binding.type method: (identifier) @_new)
  (#eq? @_new "new")) @binding
(assignment
  left: (instance_variable) @binding.name
  right: (call receiver: [(constant) (scope_resolution)] @binding.type method: (identifier) @_new)
  (#eq? @_new "new")) @binding.member

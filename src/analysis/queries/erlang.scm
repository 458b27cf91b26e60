; Erlang: functions, types, records and macros (captures: see tags.rs).

; `-module(shapes).`: the functions after it are its own (`shapes:area`).
; A module declaring `-callback`s is a behaviour: an interface its
; implementations (`-behaviour(shapes).`) meet.
(source_file
  (module_attribute name: (atom) @name) @definition.interface
  (callback)
  (#is? scopes-following))
((module_attribute name: (atom) @name) @definition.module
  (#is? scopes-following))
(callback fun: (atom) @name) @definition.method
(behaviour_attribute name: (atom) @base.enclosing)

; A function is written as clauses, one node each (`f([]) -> 0; f([_|T]) ->
; 1 + f(T).`): consecutive clauses of a name share a chunk
; (`Language::defines_by_clauses`).
(fun_decl clause: (function_clause name: (atom) @name body: (clause_body) @body)) @definition.function

; `-type t() :: …`, `-opaque t() :: …`; a record is a type with fields.
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type
(record_decl name: (atom) @name) @definition.class
; `-define(NAME, …)`, `-define(NAME(X), …)`.
(pp_define lhs: (macro_lhs name: (_) @name)) @definition.const

; Calls as written: `f(X)`, `lists:keyfind(K, 1, L)`, `?MODULE:f(X)`.
(call expr: (_) @callee) @reference.call

; `-import(lists, [map/2])`; `-include("x.hrl")`, `-include_lib("app/include/x.hrl")`.
(import_attribute module: (atom) @import.module) @import
(pp_include file: (string) @import.module) @import
(pp_include_lib file: (string) @import.module) @import

; Bash: definitions, commands and sourced files (captures: see tags.rs).

; `function f { … }`, `function f() { … }` and `f() { … }` (a body may also
; be a subshell `( … )` or a test).
(function_definition name: (word) @name body: (_)? @body) @definition.function

; Script-level `readonly X=…` and `declare -r X=…` are constants; `export`,
; `declare` and `typeset` are variables. One symbol per assignment (`export
; A=1 B=2`); inside a function they are locals, so only the file's own count.
((declaration_command "readonly" (variable_assignment name: (variable_name) @name) @part) @definition.const
  (#is? top-level))
((declaration_command
  ["declare" "typeset"]
  (word) @_flag
  (variable_assignment name: (variable_name) @name) @part) @definition.const
  (#match? @_flag "^-[a-zA-Z]*r")
  (#is? top-level))
((declaration_command ["export" "declare" "typeset"] (variable_assignment name: (variable_name) @name) @part) @definition.variable
  (#is? top-level))
; `declare -A MAP` declares without a value (`export X` only marks one;
; `declare -f f` names a function).
((declaration_command ["declare" "typeset"] . (variable_name) @name @part) @definition.variable
  (#is? top-level))
((declaration_command ["declare" "typeset"] . (word) @_flag . (variable_name) @name @part) @definition.variable
  (#match? @_flag "^-[^fFp]+$")
  (#is? top-level))

; `source file`, `. file`: the path as written (`"${BASH_IT}/lib/x.bash"`).
(command
  name: (command_name (word) @_s)
  .
  argument: (_) @import.module
  (#any-of? @_s "source" ".")) @import

; Calls: a command's name when it is a plain word (not `$cmd`); builtins that
; are syntax more than calls (`echo`, `local`, `[`, `return` …) and sourcing
; are left out.
(command
  name: (command_name (word) @callee)
  (#not-match? @callee "^(source|\\.|:|\\[|echo|printf|read|true|false|return|exit|shift|set|unset|local|export|declare|typeset|readonly|cd|pwd|test|let|eval|exec|break|continue|builtin|command|type|hash|shopt|getopts|wait|trap|alias|unalias|complete|compgen|compopt|mapfile|readarray|pushd|popd)$")) @reference.call

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key):
; `trap handler EXIT` (keyed by its last signal; `trap - EXIT` resets one) and `set -e…`.
((command
  name: (command_name (word) @_t)
  .
  argument: (_) @_h
  argument: (word) @pattern.key .) @pattern.error_handling
  (#eq? @_t "trap")
  (#not-match? @_h "^(-|''|\"\")$")
  (#set! key "trap:{}"))
((command name: (command_name (word) @_s) argument: (word) @_e) @pattern.error_handling
  (#eq? @_s "set")
  (#match? @_e "^-[a-z]*e")
  (#set! key "errexit:set -e"))

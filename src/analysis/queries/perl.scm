; Perl 5 (tree-sitter-perl): packages, subs and constants; calls of subs and
; methods; `use` and `require` of modules (captures: see tags.rs).

; `package Foo { … }`, and `package URI::_query;`, whose subs are those
; after it up to the next `package` (the tree does not nest them).
(package_statement (package_name) @name body: (block) @body) @definition.module
((package_statement (package_name) @name !body) @definition.module
  (#is? scopes-following))

; A sub whose first statement takes the invocant (`my $self = shift;`,
; `my ($class, %args) = @_;`) is a method; any other sub is a function.
(function_definition
  name: (identifier) @name
  body: (block . (binary_expression variable: (variable_declaration variable_name: (scalar_variable) @_invocant))) @body
  (#any-of? @_invocant "$self" "$class" "$this")) @definition.method
(function_definition
  name: (identifier) @name
  body: (block . (binary_expression variable: (variable_declaration (array . (scalar_variable) @_invocant)))) @body
  (#any-of? @_invocant "$self" "$class" "$this")) @definition.method
(function_definition name: (identifier) @name body: (block) @body) @definition.function

; `use constant PI => 3.14;`.
(use_constant_statement constant: (identifier) @name) @definition.const

; `use URI::Escape qw(uri_unescape);`, `require Foo::Bar;`: modules, by their
; capitalised names (lowercase ones are pragmas: strict, warnings, lib).
((use_no_statement
  package_name: (package_name) @import.module
  (word_list_qw (list_item)* @import.name)?) @import
  (#match? @import.module "^[A-Z]"))
((require_statement package_name: (package_name) @import.module) @import
  (#match? @import.module "^[A-Z]"))
; `use parent 'Foo::Base';`, `use base qw(A B);`: the parent classes'
; modules, and the bases of the package around the statement.
(use_parent_statement [(string_single_quoted) (string_double_quoted)] @import.module @base.enclosing) @import
(use_parent_statement (word_list_qw (list_item) @import.module @base.enclosing)) @import
((use_no_statement package_name: (package_name) @_pragma [(string_single_quoted) (string_double_quoted)] @import.module @base.enclosing) @import
  (#any-of? @_pragma "base" "parent"))
((use_no_statement package_name: (package_name) @_pragma (word_list_qw (list_item) @import.module @base.enclosing)) @import
  (#any-of? @_pragma "base" "parent"))

; Calls: a sub by its name as written (`uri_unescape($x)`, `carp_about $x`,
; `URI::Escape::escape_char($1)` as `URI.Escape.escape_char`), builtins left
; out; a bareword alone is a hash key (`a => 1`) or a constant, not a call. A
; method by its name (`$self->query`, `URI->new`).
([(call_expression_with_args_with_brackets (call_expression_with_bareword) @callee)
 (call_expression_with_spaced_args (call_expression_with_bareword) @callee)] @reference.call
  (#not-match? @callee "^(shift|unshift|push|pop|splice|die|warn|defined|undef|ref|scalar|wantarray|return|exists|delete|keys|values|each|join|split|map|grep|sort|reverse|print|printf|sprintf|say|length|substr|index|rindex|lc|uc|lcfirst|ucfirst|chomp|chop|chr|ord|abs|int|hex|oct|sqrt|local|bless|eval|do|open|close|binmode|exit|caller|time|localtime|gmtime|sleep|croak|carp|confess|cluck|pos|quotemeta|pack|unpack|wait|exec|system|utf8::[a-z_]+)$"))
(method_invocation function_name: (identifier) @callee) @reference.call

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((call_expression_with_bareword function_name: (identifier) @pattern.key) @pattern.error_handling
  (#any-of? @pattern.key "die" "croak" "confess")
  (#set! key "raise:{}"))
((call_expression_with_bareword function_name: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "ok" "is" "isnt" "is_deeply" "like" "unlike" "cmp_ok" "subtest" "done_testing")
  (#set! key "test:{}"))

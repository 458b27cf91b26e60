; Elixir: definitions, calls and imports (captures: see tags.rs).
; Every construct is a `call` whose target is the keyword (`defmodule`,
; `def`, `alias`, …); the name is in its `arguments`.

; Functions with their `@doc` (an attribute, not a comment): the `@doc "…"`
; or `@doc ~S"""…"""` right above, or with up to two other attributes or
; comments (`@spec`, `@impl true`) in between. These come first: the first
; pattern that captures a definition wins.
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  (call
    target: (identifier) @_def
    (arguments . [(identifier) @name
                  (call target: (identifier) @name)
                  (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "when")])
    (do_block)? @body) @definition.function
  (#eq? @_doc "doc")
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"))
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  [(unary_operator) (comment)]
  .
  (call
    target: (identifier) @_def
    (arguments . [(identifier) @name
                  (call target: (identifier) @name)
                  (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "when")])
    (do_block)? @body) @definition.function
  (#eq? @_doc "doc")
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"))
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  [(unary_operator) (comment)]
  .
  [(unary_operator) (comment)]
  .
  (call
    target: (identifier) @_def
    (arguments . [(identifier) @name
                  (call target: (identifier) @name)
                  (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "when")])
    (do_block)? @body) @definition.function
  (#eq? @_doc "doc")
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp"))

; `defmodule Phoenix.Router do` (the name as written: nested modules are
; `Outer.Inner`), `defprotocol` (an interface); `@moduledoc` is the doc.
(call
  target: (identifier) @_k
  (arguments . (alias) @name)
  (do_block
    (unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
    (#eq? @_doc "moduledoc")) @body
  (#eq? @_k "defmodule")) @definition.module
(call
  target: (identifier) @_k
  (arguments . (alias) @name)
  (do_block
    (unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
    (#eq? @_doc "moduledoc")) @body
  (#eq? @_k "defprotocol")) @definition.interface
(call target: (identifier) @_k (arguments . (alias) @name) (do_block)? @body (#eq? @_k "defmodule")) @definition.module
(call target: (identifier) @_k (arguments . (alias) @name) (do_block)? @body (#eq? @_k "defprotocol")) @definition.interface

; `defimpl Proto, for: Type` is the module `Proto.Type`: named by the type,
; scoped and based by the protocol. Without `for:` (inside the type's own
; module) it is named by the protocol.
(call
  target: (identifier) @_k
  (arguments . (alias) @scope @base
    (keywords (pair key: (keyword) @_for value: (alias) @name)))
  (do_block)? @body
  (#eq? @_k "defimpl")
  (#match? @_for "^for:")) @definition.module
(call target: (identifier) @_k (arguments . (alias) @name @base .) (do_block)? @body (#eq? @_k "defimpl")) @definition.module

; `def f(x)`, `def f`, `def f(x) when g`, and defp, macros, guards and
; delegates alike.
(call
  target: (identifier) @_def
  (arguments . [(identifier) @name
                (call target: (identifier) @name)
                (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "when")])
  (do_block)? @body
  (#any-of? @_def "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defn" "defnp")) @definition.function

; `defstruct`/`defexception` give their module a struct: a type named by the
; keyword (`MyApp.User.defstruct`).
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  (call target: (identifier) @name) @definition.type
  (#eq? @_doc "doc")
  (#any-of? @name "defstruct" "defexception"))
(call target: (identifier) @name (#any-of? @name "defstruct" "defexception")) @definition.type

; `@type t :: …`, `@typep`, `@opaque` (with a `@typedoc` right above);
; `@callback`/`@macrocallback` declare a behaviour's functions.
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  (unary_operator
    operand: (call
      target: (identifier) @_t
      (arguments (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::")))) @definition.type
  (#eq? @_doc "typedoc")
  (#any-of? @_t "type" "typep" "opaque"))
(unary_operator
  operand: (call
    target: (identifier) @_t
    (arguments (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::")))
  (#any-of? @_t "type" "typep" "opaque")) @definition.type
((unary_operator operand: (call target: (identifier) @_doc (arguments . [(string) @doc (sigil (quoted_content) @doc)])))
  .
  (unary_operator
    operand: (call
      target: (identifier) @_t
      (arguments [(binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::")
                  (binary_operator left: (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::") operator: "when")]))) @definition.function
  (#eq? @_doc "doc")
  (#any-of? @_t "callback" "macrocallback"))
(unary_operator
  operand: (call
    target: (identifier) @_t
    (arguments [(binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::")
                (binary_operator left: (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::") operator: "when")]))
  (#any-of? @_t "callback" "macrocallback")) @definition.function

; Module attributes set in a module body (`@default_timeout 5_000`) are its
; constants; the attributes Elixir itself reads are not.
(do_block
  (unary_operator
    operator: "@"
    operand: (call target: (identifier) @name (arguments))
    (#not-match? @name "^(doc|moduledoc|typedoc|spec|type|typep|opaque|callback|macrocallback|optional_callbacks|impl|behaviour|derive|enforce_keys|deprecated|since|compile|dialyzer|external_resource|before_compile|after_compile|after_verify|on_definition|on_load|vsn|file|nifs)$")) @definition.const)

; `alias A.B`, `alias A.B, as: C` (C is the name it binds), `alias A.{B, C}`
; (module A, names B and C), `import`, `require`, `use`.
(call
  target: (identifier) @_k
  (arguments . (alias) @import.module
    (keywords (pair key: (keyword) @_as value: (alias) @import.name))?)
  (#any-of? @_k "alias" "import" "require" "use")) @import
(call
  target: (identifier) @_k
  (arguments . (dot left: (_) @import.module right: (tuple (alias) @import.name)))
  (#any-of? @_k "alias" "import" "require" "use")) @import
(call
  target: (identifier) @_k
  (arguments . (dot left: (_) right: (alias)) @import.module)
  (#any-of? @_k "alias" "import" "require" "use")) @import

; Calls: local `f(x)` / `f x`, remote `Mod.f(x)`, `:ets.new(…)`, `mod.f(x)` (a
; module held in a variable; `map.key` without arguments is a field), and a
; pipe into a bare name (`x |> f`). A local call is matched by where it
; stands, so that a definition's head (`def f(x)`, `… when …`), a typespec's
; (`@spec f(x) :: …`) and an attribute (`@attr value`) are not calls; the
; definition keywords and special forms (`if`, `case`, `with` …) are not
; either. `fun.(x)` calls a variable: not kept.
((source (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((do_block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((body (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((interpolation (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((tuple (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((list (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((map_content (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((bitstring (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((else_block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((after_block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((rescue_block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((catch_block (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((pair value: (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((call target: (_) @_outer (arguments (call target: (identifier) @callee) @reference.call))
  (#not-match? @_outer "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$")
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((binary_operator left: (call target: (identifier) @callee) @reference.call operator: _ @_op)
  (#not-match? @_op "^(when|::)$")
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((binary_operator operator: _ @_op right: (call target: (identifier) @callee) @reference.call)
  (#not-eq? @_op "::")
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((unary_operator operator: _ @_op operand: (call target: (identifier) @callee) @reference.call)
  (#not-eq? @_op "@")
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
((dot left: (call target: (identifier) @callee) @reference.call)
  (#not-match? @callee "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp|defmodule|defprotocol|defimpl|defstruct|defexception|defoverridable|alias|import|require|use|case|cond|if|unless|else|for|with|try|receive|quote|unquote|unquote_splicing|super)$"))
(call target: (dot left: [(alias) (atom)] right: (identifier)) @callee) @reference.call
(call target: (dot left: (identifier) right: (identifier)) @callee (arguments)) @reference.call
(binary_operator operator: "|>" right: (identifier) @callee) @reference.call

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((rescue_block (stab_clause left: (arguments [(alias) @pattern.key (binary_operator operator: "in" right: [(alias) @pattern.key (list (alias) @pattern.key)])]))) @pattern.error_handling
  (#set! join "|")
  (#set! key "rescue:{}"))
((call target: (identifier) @_r (arguments . (alias) @pattern.key)) @pattern.error_handling
  (#any-of? @_r "raise" "reraise")
  (#set! key "raise:{}"))
((call target: (identifier) @pattern.key (arguments . (string))) @pattern.test
  (#any-of? @pattern.key "test" "describe")
  (#set! key "test:{}"))
((call target: (dot left: (alias) @_l right: (identifier) @pattern.key)) @pattern.logging
  (#eq? @_l "Logger")
  (#any-of? @pattern.key "debug" "info" "notice" "warning" "warn" "error" "critical")
  (#set! key "log:Logger.{}:plain"))

; Clojure (tree-sitter-clojure-orchard): a namespace and its top-level
; definitions, each named by its symbol; the docstring after the name is
; its doc, `;;` comments above it too (captures: see tags.rs). Every list's
; head is a call (`(str/join …)` as `str.join`), special forms and the
; defining forms left out.

; `(ns medley.core "doc" (:require …))`.
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name) . (str_lit)? @doc) @definition.module
  (#eq? @_k "ns"))

; `(defn f "doc" [x] …)`, `defn-`, `defmacro`, `defmulti`, `defmethod`,
; and clojure.test's `deftest`.
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name) . (str_lit)? @doc) @definition.function
  (#any-of? @_k "defn" "defn-" "defmacro" "defmulti" "defmethod" "deftest" "defspec"))

; `(defprotocol P "doc" (m [this]))`; `(defrecord R [a b] P …)`, `deftype`
; (the protocols it implements as bases).
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name) . (str_lit)? @doc) @definition.interface
  (#any-of? @_k "defprotocol" "definterface"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name) . (vec_lit) (sym_lit) @base) @definition.class
  (#any-of? @_k "defrecord" "deftype"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.class
  (#any-of? @_k "defrecord" "deftype"))

; `(def x …)`, `(defonce x …)`.
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name) . (str_lit)? @doc) @definition.variable
  (#any-of? @_k "def" "defonce"))

; Calls: the head of a list, as written.
((list_lit . (sym_lit) @callee) @reference.call
  (#not-any-of? @callee
    "ns" "def" "defn" "defn-" "defmacro" "defmulti" "defmethod" "deftest" "defspec" "defprotocol" "definterface"
    "defrecord" "deftype" "defonce" "if" "if-not" "if-let" "if-some" "do" "let" "letfn" "fn" "fn*" "loop" "recur"
    "quote" "var" "throw" "try" "catch" "finally" "when" "when-not" "when-let" "when-some" "cond" "condp" "case"
    "and" "or" "->" "->>" "as->" "some->" "some->>" "cond->" "cond->>" "doto" "binding" "new" "set!" "/"))

; `(:require [clojure.string :as str] medley.core)`, `(:use …)`, `(:import …)`.
((list_lit . (kwd_lit name: (kwd_name) @_r) (vec_lit . (sym_lit) @import.module) @import)
  (#any-of? @_r "require" "use"))
((list_lit . (kwd_lit name: (kwd_name) @_r) (sym_lit) @import.module @import)
  (#any-of? @_r "require" "use"))

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((list_lit . (sym_lit name: (sym_name) @pattern.key)) @pattern.test
  (#any-of? @pattern.key "deftest" "testing" "is")
  (#set! key "test:{}"))
((list_lit . (sym_lit name: (sym_name) @pattern.key)) @pattern.error_handling
  (#any-of? @pattern.key "try" "throw" "ex-info")
  (#set! key "except:{}"))

; R: functions, R6 and S4 classes, testthat tests, calls and what a file
; loads (captures: see tags.rs). Roxygen comments (`#'`) above a definition
; are its doc.

; `Counter <- R6Class("Counter", inherit = Base, public = list(add =
; function(n) …))`: a class (its `inherit` a base) whose list members are
; its methods.
(binary_operator
  lhs: (identifier) @name
  rhs: (call
    function: [(identifier) (namespace_operator)] @_c
    arguments: (arguments (argument name: (identifier) @_i value: (identifier) @base)?))
  (#match? @_c "(^|:)R6Class$")
  (#eq? @_i "inherit")) @definition.class
(binary_operator
  lhs: (identifier) @name
  rhs: (call function: [(identifier) (namespace_operator)] @_c)
  (#match? @_c "(^|:)R6Class$")) @definition.class
(call
  function: [(identifier) (namespace_operator)] @_c
  arguments: (arguments
    (argument
      value: (call
        function: (identifier) @_l
        arguments: (arguments
          (argument name: (identifier) @name value: (function_definition body: (_) @body)) @definition.method))))
  (#match? @_c "(^|:)R6Class$")
  (#eq? @_l "list"))

; `f <- function(x) …`, `f = function(x) …`, `f <<- function(x) …`.
(binary_operator lhs: [(identifier) (string)] @name rhs: (function_definition body: (_) @body)) @definition.function

; S4: `setClass("Person", …)`, `setGeneric("area", …)`, `setMethod("area", …)`.
((call
  function: (identifier) @_f
  arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.class
  (#any-of? @_f "setClass" "setRefClass"))
((call
  function: (identifier) @_f
  arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.function
  (#any-of? @_f "setGeneric" "setMethod"))

; testthat: `test_that("what it checks", { … })` is a test named so.
((call
  function: (identifier) @_f
  arguments: (arguments . (argument value: (string (string_content) @name)) (argument value: (braced_expression) @body))) @definition.function
  (#eq? @_f "test_that"))

; A script's or package's other top-level values (`LIMIT <- 10`).
((binary_operator lhs: (identifier) @name) @definition.variable
  (#is? top-level))

; Calls as written: `f(x)`, `stats::median(x)`, `self$add(1)` (as
; `self.add`); loading a package or a file is an import, and the calls
; that define (`test_that`, `setClass`, `R6Class`, …) are not calls.
((call function: [(identifier) (namespace_operator)] @callee) @reference.call
  (#not-any-of? @callee "library" "require" "requireNamespace" "source" "sys.source" "return"
    "test_that" "setClass" "setRefClass" "setGeneric" "setMethod" "R6Class" "R6::R6Class"))
(call function: (extract_operator lhs: (_) @callee.object rhs: (identifier) @callee)) @reference.call

; `library(withr)`, `require("x")`, `requireNamespace("x")`,
; `source("R/utils.R")` (not `source(path)`: a file known at run time).
((call
  function: (identifier) @_f
  arguments: (arguments . (argument value: [(identifier) @import.module (string (string_content) @import.module)]))) @import
  (#any-of? @_f "library" "require"))
((call
  function: (identifier) @_f
  arguments: (arguments . (argument value: (string (string_content) @import.module)))) @import
  (#any-of? @_f "requireNamespace" "source" "sys.source"))

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((call function: (identifier) @pattern.key) @pattern.error_handling
  (#any-of? @pattern.key "tryCatch" "try" "withCallingHandlers" "stop" "stopifnot")
  (#set! key "except:{}"))
((call function: (identifier) @pattern.key) @pattern.test
  (#any-of? @pattern.key "test_that" "describe" "it")
  (#set! key "test:{}"))
((call function: (identifier) @pattern.key) @pattern.logging
  (#any-of? @pattern.key "message" "warning")
  (#set! key "log:{}:plain"))

; Objective-C: classes, protocols, methods and messages, then C's query
; (functions, types, macros, calls, `#include`/`#import`) follows: the
; grammar extends C's. A pattern here wins over C's for the same name.

; `@interface C : Base <P, Q>` and `@implementation C`: the class (its
; methods are `C.m`). A category or extension (`@interface C (Cat)`,
; `@interface C ()`) adds members to C without defining it.
(class_interface . (identifier) @name "(") @scope.impl
(class_implementation . (identifier) @name category: (identifier)) @scope.impl
(class_interface
  . (identifier) @name
  superclass: (identifier)? @base
  (parameterized_arguments (type_name) @base)?) @definition.class
(class_implementation . (identifier) @name) @definition.class
(protocol_declaration . (identifier) @name (protocol_reference_list (identifier) @base)?) @definition.interface

; Methods, named by their selector's first part (`initWithDelegate:` →
; `initWithDelegate`); declared in an `@interface`/`@protocol`, defined in
; an `@implementation`. Properties are the class's variables.
; An `@implementation`'s items are each wrapped in a node whose siblings
; are the comments above them (their docs).
(implementation_definition (method_definition (method_type) . (identifier) @name (compound_statement) @body)) @definition.method
(method_definition (method_type) . (identifier) @name (compound_statement) @body) @definition.method
; A C function written inside an `@implementation` is still the file's.
((implementation_definition
  (function_definition
    declarator: [(function_declarator declarator: (identifier) @name)
                 (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]
    body: (compound_statement) @body)) @definition.function
  (#is? file-level))
(method_declaration (method_type) . (identifier) @name) @definition.method
(property_declaration
  (struct_declaration
    (struct_declarator [(identifier) @name (pointer_declarator declarator: (identifier) @name)]))) @definition.variable

; Messages: `[obj m]`, `[self.delegate m:x n:y]` (the first part of the
; selector); a receiver that is itself a message is left out.
(message_expression receiver: [(identifier) (field_expression)] @callee.object . method: (identifier) @callee) @reference.call
(message_expression receiver: (message_expression) . method: (identifier) @callee) @reference.call

; `@import Foundation;`
(module_import path: (_) @import.module) @import

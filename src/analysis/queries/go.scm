; Go: definitions, calls and imports (captures: see tags.rs).

(function_declaration name: (identifier) @name body: (block)? @body) @definition.function

; `func (s *Server) Start()`, `func (p *Pointer[T]) Load()`: scoped by the receiver type.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; A declaration of one type is the definition (its chunk starts at `type`);
; in a `type ( … )` group each spec is. Embedded fields and embedded
; interfaces are bases.
(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type
      (field_declaration_list
        (field_declaration !name type: [(type_identifier) (qualified_type) (generic_type)] @base)?) @body)) .) @definition.class
(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type
      (type_elem . [(type_identifier) (qualified_type) (generic_type)] @base .)?) @body) .) @definition.interface
(type_declaration . [(type_spec name: (type_identifier) @name) (type_alias name: (type_identifier) @name)] .) @definition.type
(type_spec
  name: (type_identifier) @name
  type: (struct_type
    (field_declaration_list
      (field_declaration !name type: [(type_identifier) (qualified_type) (generic_type)] @base)?) @body)) @definition.class
(type_spec
  name: (type_identifier) @name
  type: (interface_type
    (type_elem . [(type_identifier) (qualified_type) (generic_type)] @base .)?) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Interface methods.
(method_elem name: (field_identifier) @name) @definition.method

; Package-level constants and variables: the whole declaration when it has
; one spec, else each spec (the first name of `const a, b = …`).
(source_file (const_declaration . (const_spec . name: (identifier) @name) .) @definition.const)
(source_file (var_declaration . (var_spec . name: (identifier) @name) .) @definition.variable)
(source_file (const_declaration (const_spec . name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec . name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec . name: (identifier) @name) @definition.variable)))

; Calls: the called expression as written (`f`, `pkg.F`, `s.x.M`).
(call_expression function: (_) @callee) @reference.call

; One import per spec: the path; an alias is the name it binds.
(import_spec name: (package_identifier) @import.name path: (_) @import.module) @import
(import_spec path: (_) @import.module) @import

; Conventions (@pattern.<category>, keyed by (#set! key) and @pattern.key).
((if_statement condition: (binary_expression left: (identifier) @_e right: (nil))) @pattern.error_handling
  (#eq? @_e "err")
  (#set! key "check:err != nil"))
((function_declaration name: (identifier) @_n parameters: (parameter_list (parameter_declaration type: (pointer_type (qualified_type) @_t)))) @pattern.test
  (#match? @_n "^(Test|Benchmark|Fuzz)")
  (#match? @_t "^testing\\.[TBF]$")
  (#set! key "test:go"))
((call_expression function: (selector_expression operand: (identifier) @_l @pattern.key field: (field_identifier) @_f @pattern.key)) @pattern.logging
  (#match? @_l "^(log|slog|logger|klog|glog|zap|logrus)$")
  (#match? @_f "^(Print|Printf|Println|Fatal|Fatalf|Fatalln|Debug|Info|Warn|Error|Debugf|Infof|Warnf|Errorf)$")
  (#set! key "log:{}:plain"))

; Bindings (receivers.rs): parameters and receivers, typed variables,
; struct literals and fields, for calls through them (`s.store.Save()`
; in `func (s *Server)` with `store *Store` is `Store.Save`).
(parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding
(var_spec name: (identifier) @binding.name type: (_) @binding.type) @binding
(short_var_declaration
  left: (expression_list . (identifier) @binding.name .)
  right: (expression_list . [(composite_literal type: (_) @binding.type)
                             (unary_expression operand: (composite_literal type: (_) @binding.type))] .)) @binding
(field_declaration name: (field_identifier) @binding.name type: (_) @binding.type) @binding

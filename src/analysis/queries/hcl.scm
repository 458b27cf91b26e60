; HCL and Terraform: a file's top-level blocks are its definitions, named
; as Terraform addresses them (captures: see tags.rs).

; `resource "aws_s3_bucket" "logs" { … }` → `aws_s3_bucket.logs` (the type
; is the scope); `data "aws_iam_policy_document" "x"` the same.
(config_file
  (body
    (block
      (identifier) @_kind
      . (string_lit (template_literal) @scope)
      . (string_lit (template_literal) @name)
      (body)? @body) @definition.class)
  (#any-of? @_kind "resource" "data" "ephemeral"))

; `module "s3_bucket" { source = "../../" … }`: a module, its local source
; an import; `variable "x"` and `output "x"`: values; `provider "aws"`.
(config_file
  (body
    (block (identifier) @_kind . (string_lit (template_literal) @name) (body)? @body) @definition.module)
  (#eq? @_kind "module"))
; Their `description` is their doc.
(config_file
  (body
    (block
      (identifier) @_kind
      . (string_lit (template_literal) @name)
      (body
        (attribute
          (identifier) @_attr
          (expression (literal_value (string_lit) @doc))))) @definition.variable)
  (#any-of? @_kind "variable" "output")
  (#eq? @_attr "description"))
(config_file
  (body
    (block (identifier) @_kind . (string_lit (template_literal) @name)) @definition.variable)
  (#any-of? @_kind "variable" "output"))
; `locals { bucket_name = … }`: each local is a value.
(config_file
  (body
    (block
      (identifier) @_kind
      (body (attribute (identifier) @name) @definition.variable)))
  (#eq? @_kind "locals"))
; Any other labelled block (`provider "aws"`, Packer's `source "x" "y"`,
; Nomad's `job "x"`): named by its last label.
(config_file
  (body
    (block
      (identifier) @_kind
      (string_lit (template_literal) @name) .
      (body)? @body) @definition.class)
  (#not-any-of? @_kind "resource" "data" "ephemeral" "module" "variable" "output" "locals" "terraform"))

; Uses: `var.x`, `local.x`, `module.x` (as written), a resource by its
; address (`aws_sqs_queue.this.arn` → `aws_sqs_queue.this`, `data.t.x.json`
; → `t.x`), and function calls (`md5(x)`).
((expression
  (variable_expr (identifier) @_data)
  . (get_attr (identifier) @callee.object)
  . (get_attr (identifier) @callee)) @reference.call
  (#eq? @_data "data"))
((expression
  (variable_expr (identifier) @callee.object)
  . (get_attr (identifier) @callee)) @reference.call
  (#not-any-of? @callee.object "data" "count" "each" "self" "path" "terraform"))
(function_call (identifier) @callee) @reference.call

; `source = "../modules/x"` in a `module` block: the module's directory.
(block
  (identifier) @_kind
  (body
    (attribute
      (identifier) @_attr
      (expression (literal_value (string_lit (template_literal) @import.module)))) @import)
  (#eq? @_kind "module")
  (#eq? @_attr "source"))

; Protocol Buffers: messages, enums, services and their rpcs (captures: see tags.rs).

; A message is a type whose nested messages and enums are its members
; (`Outer.Inner`); a service is an interface whose rpcs are its methods.
(message (message_name (identifier) @name) (message_body) @body) @definition.class
(enum (enum_name (identifier) @name) (enum_body) @body) @definition.enum
(service (service_name (identifier) @name)) @definition.interface
(rpc (rpc_name (identifier) @name)) @definition.method
; An enum's values are its constants (`Status.ACTIVE`).
(enum_field (identifier) @name) @definition.const

; Uses of a message or enum type, recorded as calls: a field's type, an
; rpc's request and response. "Callers" of a message are where it is used.
(message_or_enum_type) @reference.call @callee

; `import "google/api/annotations.proto";`: a path from an include root.
(import path: (string) @import.module) @import

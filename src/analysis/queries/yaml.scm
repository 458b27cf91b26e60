; YAML: the keys of each document's top-level mapping and of the mappings
; one level below (a workflow's `jobs.build`), named by their dotted path;
; deeper keys and sequences are the text of their key's chunk. A key whose
; value is a block is cut at its keys when over the budget (captures: see
; tags.rs). `#` comments above a key are its doc.
(stream (document (block_node (block_mapping
  (block_mapping_pair key: (_) @name value: (block_node) @body) @definition.key))))
(stream (document (block_node (block_mapping
  (block_mapping_pair key: (_) @name) @definition.key))))
(stream (document (block_node (block_mapping (block_mapping_pair value: (block_node (block_mapping
  (block_mapping_pair key: (_) @name value: (block_node) @body) @definition.key)))))))
(stream (document (block_node (block_mapping (block_mapping_pair value: (block_node (block_mapping
  (block_mapping_pair key: (_) @name) @definition.key)))))))

; JSON: the keys of the top-level object and of the objects one level
; below (`scripts.test`), named by their dotted path; deeper keys and
; arrays are the text of their key's chunk (captures: see tags.rs).
(document (object
  (pair key: (string) @name value: [(object) (array)] @body) @definition.key))
(document (object
  (pair key: (string) @name) @definition.key))
(document (object (pair value: (object
  (pair key: (string) @name value: [(object) (array)] @body) @definition.key))))
(document (object (pair value: (object
  (pair key: (string) @name) @definition.key))))

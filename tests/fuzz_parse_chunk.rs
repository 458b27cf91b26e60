//! Property tests of the parse + chunk path ("parsing never fails"): for
//! arbitrary bytes, and for real-looking source cut and spliced at random
//! places, in every language, `chunk_file` does not panic and everything it
//! reports lies inside the file: chunk and symbol line ranges (1-based,
//! start ≤ end ≤ lines), byte ranges, pattern example lines; chunk ids are
//! unique and every chunk's parent exists.

use std::collections::HashSet;

use git_rag::analysis::chunk::{chunk_file, ChunkOptions};
use proptest::prelude::*;

const EXTENSIONS: &[&str] = &[
    "py", "js", "ts", "tsx", "rs", "go", "java", "c", "h", "cpp", "cs", "rb", "lua", "kt", "swift", "php", "scala", "sh", "ex", "hs", "zig", "proto", "erl",
    "ml", "mli", "m", "jl", "R", "tf", "dart", "sql", "clj", "pl", "yml", "toml", "json", "vue", "svelte", "md", "txt", "weird",
];

const SEEDS: &[&str] = &[
    "import os\nfrom .x import y\n\n\nclass A(B):\n    \"\"\"Doc.\"\"\"\n\n    @property\n    def f(self, x):\n        try:\n            return g(x)\n        except ValueError as e:\n            log.error('bad %s', e)\n            raise\n\n\ndef h(*a, **k):\n    return [i for i in a]\n",
    "'use strict';\nconst express = require('express');\nconst router = express.Router();\n\nclass Store extends Base {\n  constructor(a) { super(a); this.a = a; }\n  get(k) { return this.a[k]; }\n}\n\nrouter.get('/users/:id', async (req, res) => {\n  try { res.json(await load(req.params.id)); } catch (e) { console.error(e); }\n});\nmodule.exports = { Store, router };\n",
    "export interface Opts<T> { a?: T; b: string }\nexport type Id = string | number;\nexport enum Color { Red, Green }\nexport function parse<T>(s: string, o: Opts<T>): T {\n  return JSON.parse(s) as T;\n}\nexport default class Parser { constructor(private o: Opts<any>) {} }\n",
    "import React from 'react';\nexport const Button = ({ label }: { label: string }) => <button onClick={() => go(label)}>{label}</button>;\nfunction App() { return <div><Button label=\"x\" /></div>; }\nexport default App;\n",
    "# Title\n\nSome text.\n\n## Section\n\n```python\ndef f():\n    pass\n```\n",
    "# Use\n\n  ```rust,ignore\n  let s = S::new(g(1));\n  ```\n\n~~~ts\nexport function f() { return h() }\n~~~\n\n````md\n```c++\nint main() { return k(); }\n```\n````\n\n```{.go}\nfunc main() { run()\n",
    "use crate::a::{B, C};\n/// Doc.\n#[derive(Debug)]\npub struct S<T> { x: T }\nimpl<T: Clone> Tr for S<T> {\n    fn f(&self) -> Result<T, E> { let y = g(self.x.clone())?; Ok(y) }\n}\nmacro_rules! m { ($x:expr) => { $x } }\nmod inner { pub fn h() { super::m!(1); } }\n",
    "package cmd\n\nimport (\n\t\"fmt\"\n\t\"github.com/o/r/pkg\"\n)\n\n// Server serves.\ntype Server struct { pkg.Base; n int }\n\nfunc (s *Server) Start() error {\n\tif err := pkg.Run(s.n); err != nil {\n\t\treturn fmt.Errorf(\"x: %w\", err)\n\t}\n\treturn nil\n}\n",
    "package org.x;\nimport java.util.List;\n/** Doc. */\npublic class A<T> extends B implements C {\n  @Override public void f(List<T> l) { try { g(l); } catch (Exception e) { log.warn(\"x\", e); } }\n  class Inner { int h() { return 1; } }\n}\n",
    "#include <stdio.h>\n#include \"x.h\"\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\ntypedef struct node { int v; struct node *next; } node_t;\nstatic int *f(int a) { return g(a); }\nnamespace ns { class K : public Base { public: void m(); }; void K::m() { f(1); } }\ntemplate <typename T> T id(T x) { return x; }\n",
    "using System;\nnamespace App.Core {\n  /// <summary>Doc.</summary>\n  public class Svc : IBase { public int P { get; set; } public void Run() { try { Go(); } catch (Exception e) { Log(e); } } }\n}\n",
    "require 'json'\nrequire_relative 'a/b'\nmodule M\n  # Doc.\n  class K < Base\n    def run(x)\n      go(x)\n    rescue StandardError => e\n      log(e)\n    end\n    def self.make; new; end\n  end\nend\n",
    "syntax = \"proto3\";\npackage a.v1;\nimport \"google/protobuf/empty.proto\";\n// A book.\nmessage Book {\n  string name = 1;\n  enum Kind { KIND_UNSPECIFIED = 0; NOVEL = 1; }\n  Kind kind = 2;\n  oneof x { string a = 3; int32 b = 4; }\n  map<string, Book> related = 5;\n}\nservice Library {\n  rpc GetBook(GetBookRequest) returns (Book) { option (google.api.http) = { get: \"/v1/{name=books/*}\" }; }\n  rpc Watch(stream Book) returns (stream google.protobuf.Empty);\n}\n",
    "<template>\n  <button @click=\"go\">{{ label }}</button>\n</template>\n\n<script setup lang=\"ts\">\nimport { go as run } from './x'\nconst props = defineProps<{ label: string }>()\nfunction go() { run(props.label) }\n</script>\n<script>\nexport default { name: 'B' }\n</script>\n\n<style scoped>\nbutton { color: red }\n</style>\n",
    "open Printf\nmodule State = struct\n  type t = { mutable idx : int }\n  (* Doc. *)\n  let rec bits s = s.idx <- s.idx + 1; if s.idx > 3 then bits s else s.idx\nend\nlet () = printf \"%d\" (State.bits { idx = 0 } |> succ)\nval f : int -> int\n(** After. *)\n",
    "#import \"A.h\"\n@interface A : NSObject <P>\n@property (nonatomic) int n;\n- (void)run:(int)x with:(id)y;\n@end\n@implementation A\n// Doc.\n- (void)run:(int)x with:(id)y {\n  [self.delegate go:x];\n  helper(x);\n}\nstatic int helper(int x) { return x; }\n@end\n",
    "module M\nusing Base: lt\ninclude(\"x.jl\")\n\"\"\"\n    f(x)\n\nDoc.\n\"\"\"\nfunction f(x::Int)::Int\n    try\n        g.(x)\n    catch e\n        @warn \"bad\" e\n    end\nend\nstruct P{T} <: A\n    x::T\nend\nBase.length(p::P) = 1\nend\n",
    "library(withr)\nsource(\"R/utils.R\")\n#' Doc.\nf <- function(x, y = 2) {\n  tryCatch(g(x), error = function(e) message(e))\n}\nCounter <- R6::R6Class(\"Counter\", public = list(add = function(n) self$n <- n))\ntest_that(\"f works\", {\n  expect_equal(f(1), 2)\n})\n",
    "variable \"name\" {\n  description = \"The name.\"\n  type = string\n}\nlocals {\n  tags = { Name = var.name }\n}\n# Logs.\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"${var.name}-logs\"\n  tags   = local.tags\n}\nmodule \"cdn\" {\n  source = \"./modules/cdn\"\n  origin = aws_s3_bucket.logs.arn\n}\noutput \"arn\" { value = module.cdn.arn }\n",
    "import 'package:p/a.dart' as p;\n/// Doc.\nabstract class A<T> extends B with M implements C {\n  A(this.x);\n  factory A.parse(String s) { try { return A(p.f(s)); } catch (e) { rethrow; } }\n  final int x;\n  int get y => x..toString();\n}\nvoid main() {\n  test('t', () => expect(A(1).y, 1));\n}\n",
    "-- Doc.\nCREATE TABLE IF NOT EXISTS \"public\".\"users\" (id serial PRIMARY KEY, org int REFERENCES orgs(id));\nCREATE INDEX users_org ON users(org);\nCREATE TYPE s AS ENUM ('a', 'b');\n/* Doc. */\nCREATE OR REPLACE FUNCTION f(x int) RETURNS int AS $$\nBEGIN\n  RETURN (SELECT count(*) FROM users u JOIN orgs o ON o.id = u.org);\nEND;\n$$ LANGUAGE plpgsql;\nCREATE VIEW v AS SELECT * FROM users;\n",
    "(ns a.b\n  \"Doc.\"\n  (:require [clojure.string :as str] c.d))\n;; Doc.\n(defn- f\n  \"Doc.\"\n  ([x] (f x 1))\n  ([x y] (try (str/join [x y]) (catch Exception e (throw (ex-info \"bad\" {}))))))\n(defrecord R [a] P (m [this] a))\n(deftest t (is (= 1 (f 1))))\n#?(:cljs (def x 1))\n",
    "package A::B;\nuse strict;\nuse C::D qw(f);\nuse constant PI => 3.14;\n# Doc.\nsub new {\n    my $class = shift;\n    return bless { @_ }, $class;\n}\nsub g { my ($x) = @_; eval { C::D::f($x) } or die \"bad: $@\"; return $x->h(1) }\npackage E { sub i { g(1) } }\n=pod\n\nDoc.\n\n=cut\n1;\n",
    "# Doc.\nname: CI\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          cargo test\n  'quoted key': {a: 1}\n---\n- a\n",
    "# Doc.\n[package]\nname = \"x\"\nversion.workspace = true\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n\n[[bin]]\nname = \"y\"\n",
    "{\n  \"name\": \"x\",\n  // A comment.\n  \"scripts\": {\"test\": \"jest\", \"\": 1},\n  \"files\": [\"a\", {\"b\": [1, 2.5e3, null, true]}]\n}\n",
    "local json = require(\"json\")\nlocal M = {}\n-- Doc.\nfunction M.f(a) return json.encode(a) end\nfunction M:g() return self.f(1) end\nlocal function h() pcall(M.f, 2) end\nreturn M\n",
];

fn line_count(data: &[u8]) -> usize {
    // Lenient upper bound: a trailing newline may or may not open a last line.
    data.iter().filter(|b| **b == b'\n').count() + 1
}

fn check(path: &str, data: &[u8], opts: &ChunkOptions) -> Result<(), TestCaseError> {
    let out = chunk_file(path, data, opts);
    let lines = line_count(data);
    let mut ids = HashSet::new();
    for c in &out.chunks {
        prop_assert!(c.start_line >= 1 && c.start_line <= c.end_line && c.end_line <= lines, "{path}: chunk lines {}-{} of {lines}", c.start_line, c.end_line);
        prop_assert!(c.start_byte <= c.end_byte && c.end_byte <= data.len(), "{path}: chunk bytes {}-{} of {}", c.start_byte, c.end_byte, data.len());
        prop_assert!(ids.insert(c.id.clone()), "{path}: chunk id {} repeated", c.id);
    }
    for c in &out.chunks {
        if let Some(p) = &c.parent_id {
            prop_assert!(ids.contains(p), "{path}: parent {p} of {} is not a chunk", c.id);
        }
    }
    for s in &out.symbols {
        let sp = &s.span;
        prop_assert!(
            sp.start_line >= 1 && sp.start_line <= sp.end_line && sp.end_line <= lines,
            "{path}: symbol {} lines {}-{} of {lines}",
            s.qualified_name,
            sp.start_line,
            sp.end_line
        );
        prop_assert!(sp.start_byte <= sp.end_byte && sp.end_byte <= data.len(), "{path}: symbol {} bytes", s.qualified_name);
    }
    for p in &out.patterns {
        prop_assert!(
            p.start_line >= 1 && p.start_line <= p.end_line && p.end_line <= lines,
            "{path}: pattern {} lines {}-{} of {lines}",
            p.key,
            p.start_line,
            p.end_line
        );
    }
    Ok(())
}

/// A small budget and window make the split/merge and windowing paths run on small inputs.
fn small_opts() -> ChunkOptions {
    ChunkOptions { budget: 60, max_parse_bytes: 600, max_window_lines: 5 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_in_every_language(data in proptest::collection::vec(any::<u8>(), 0..600), ext in 0..EXTENSIONS.len(), small in any::<bool>()) {
        let opts = if small { small_opts() } else { ChunkOptions::default() };
        check(&format!("src/f.{}", EXTENSIONS[ext]), &data, &opts)?;
    }

    #[test]
    fn mutated_source_in_every_language(
        seed in 0..SEEDS.len(),
        ext in 0..EXTENSIONS.len(),
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 0..8)), 0..6),
        small in any::<bool>(),
    ) {
        let mut data = SEEDS[seed].as_bytes().to_vec();
        for (at, len, insert) in cuts {
            // Delete a stretch and splice in random bytes (often invalid UTF-8 or unbalanced brackets).
            let start = at.index(data.len() + 1);
            let end = (start + len.index(12)).min(data.len());
            data.splice(start..end, insert);
        }
        let opts = if small { small_opts() } else { ChunkOptions::default() };
        check(&format!("pkg/m.{}", EXTENSIONS[ext]), &data, &opts)?;
    }

    #[test]
    fn repeated_and_deeply_nested_text(unit in "[(){}\\[\\]:;\\n a-z'\"`]{1,6}", times in 1usize..400, ext in 0..EXTENSIONS.len()) {
        let data = unit.repeat(times);
        check(&format!("x.{}", EXTENSIONS[ext]), data.as_bytes(), &small_opts())?;
    }
}

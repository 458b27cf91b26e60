//! Hybrid retrieval, the code graph, project patterns and the context
//! assembler, end to end through `git rag` on real git repositories.

use std::collections::BTreeMap;

use crate::common::{require_model, stderr, stdout, TestRepo};
use serde_json::Value;

const UTIL: &str = r#"import logging

log = logging.getLogger(__name__)


class AppError(Exception):
    """Base error of the app."""


class NotFound(AppError):
    """Nothing at that path."""


def load_config(path):
    """Read the configuration file."""
    try:
        with open(path) as fh:
            return fh.read()
    except OSError as e:
        log.error("cannot read %s", path)
        raise AppError(path) from e


def parse_port(text):
    try:
        return int(text)
    except ValueError:
        log.error("bad port %s", text)
        raise
"#;

const SERVER: &str = r#"from flask import Flask

from .util import load_config, parse_port

app = Flask(__name__)


@app.route("/health")
def health():
    return "ok"


@app.route("/config")
def config():
    cfg = load_config("app.cfg")
    return cfg


def start(argv):
    port = parse_port(argv[1])
    cfg = load_config(argv[2])
    return port, cfg
"#;

const TESTS: &str = r#"import pytest

from app.server import start


@pytest.fixture
def argv():
    return ["x", "80", "app.cfg"]


def test_start(argv):
    assert start(argv)


def test_health():
    assert True
"#;

const ROUTES: &str = r#"'use strict';
var express = require('express');
var router = express.Router();

router.get('/users', function list(req, res, next) {
  loadUsers(function (err, users) {
    if (err) return next(err);
    res.json(users);
  });
});

router.post('/users', function create(req, res, next) {
  try {
    saveUser(req.body);
  } catch (err) {
    next(err);
  }
});

function loadUsers(cb) {
  cb(null, []);
}

function saveUser(user) {
  return loadUsers(function () {});
}

module.exports = router;
"#;

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/__init__.py", "");
    repo.write("app/util.py", UTIL);
    repo.write("app/server.py", SERVER);
    repo.write("tests/test_server.py", TESTS);
    repo.write("web/routes.js", ROUTES);
    repo.commit("app");
    repo
}

/// (path, symbol) of each result.
fn located(v: &Value) -> Vec<(&str, &str)> {
    v["results"]
        .as_array()
        .map_or_else(Vec::new, |rs| rs.iter().map(|r| (r["path"].as_str().unwrap_or_default(), r["symbol"].as_str().unwrap_or_default())).collect())
}

fn symbols(v: &Value) -> Vec<String> {
    v["results"].as_array().expect("results").iter().filter_map(|r| r["symbol"].as_str().map(str::to_string)).collect()
}

#[test]
fn graph_mode_answers_callers_callees_and_importers() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let callers = symbols(&repo.query("what calls load_config", &["--mode", "graph"]));
    assert_eq!(&callers[..2], &["config".to_string(), "start".to_string()], "{callers:?}");
    // Then the subject itself, for context.
    assert_eq!(callers[2], "load_config");
    let callees = symbols(&repo.query("what does start call", &["--mode", "graph"]));
    assert_eq!(&callees[..2], &["load_config".to_string(), "parse_port".to_string()], "{callees:?}");
    // JavaScript: a function called from two route handlers' callbacks.
    let js = symbols(&repo.query("who calls loadUsers", &["--mode", "graph"]));
    assert!(js.contains(&"saveUser".to_string()), "{js:?}");
    // Importers of a file.
    let v = repo.query("what imports util.py", &["--mode", "graph"]);
    let paths: Vec<&str> = v["results"].as_array().expect("results").iter().filter_map(|r| r["path"].as_str()).collect();
    assert!(paths.contains(&"app/server.py"), "{v}");
    // Depth 2: callers of callers (nothing calls `config`, `start` is called by the test).
    let deep = symbols(&repo.query("what calls parse_port", &["--mode", "graph", "--depth", "2"]));
    assert!(deep.contains(&"start".to_string()) && deep.contains(&"test_start".to_string()), "{deep:?}");
    // Hybrid reads the same intent from the question and ranks the callers first.
    let v = repo.query("what calls load_config", &[]);
    assert_eq!(v["analysis"]["intent"], "graph");
    // The callers lead; the subject itself (found by every retriever) may sit among them.
    let top: Vec<String> = symbols(&v).into_iter().take(3).collect();
    assert!(top.contains(&"config".to_string()) && top.contains(&"start".to_string()), "{v}");
    assert!(v["results"][0]["signals"]["graph"].as_u64().is_some());
}

#[test]
fn components_scripts_are_in_the_graph() {
    // A Vue and a Svelte component call a TypeScript helper; the Vue one
    // imports the Svelte one.
    let repo = TestRepo::new();
    repo.write("src/format.ts", "export function formatPrice(cents: number): string {\n  return (cents / 100).toFixed(2)\n}\n");
    repo.write(
        "src/Cart.vue",
        "<template>\n  <p>{{ total() }}</p>\n</template>\n\n<script setup lang=\"ts\">\nimport { formatPrice } from './format'\nimport Badge from './Badge.svelte'\n\nfunction total() {\n  return formatPrice(1250)\n}\n</script>\n",
    );
    repo.write("src/Badge.svelte", "<script>\n  import { formatPrice } from './format'\n  export let cents = 0\n  function label() {\n    return formatPrice(cents)\n  }\n</script>\n\n<span class=\"badge\">{label()}</span>\n");
    repo.commit("components");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("formatPrice", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("src/Cart.vue", "total")) && located(&v).contains(&("src/Badge.svelte", "label")), "{v}");
    let v = repo.query("what imports Badge.svelte", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "src/Cart.vue"), "{v}");
    let v = repo.query("total", &["--mode", "symbol", "--lang", "vue"]);
    assert_eq!(v["results"][0]["path"], "src/Cart.vue", "{v}");
    assert_eq!((v["results"][0]["start_line"].as_u64(), v["results"][0]["language"].as_str()), (Some(9), Some("vue")), "{v}");
}

#[test]
fn a_documents_examples_are_among_the_callers_of_what_they_use() {
    // A README shows the library in a Python block, a block without a
    // language and a console session; its examples' own definitions are
    // not the project's.
    let repo = TestRepo::new();
    repo.write("shop/db.py", "def connect(url):\n    return url\n\n\ndef migrate(conn):\n    return conn\n");
    repo.write("zeta/app.py", "from shop.db import connect\n\n\ndef serve():\n    return connect('db://')\n");
    repo.write(
        "README.md",
        "# Shop\n\nConnect first:\n\n```python\nfrom shop.db import connect\n\ndef handler(request):\n    return connect(request.url)\n```\n\n## Text\n\n```\nmigrate(conn)  # no language: prose\n```\n\n~~~console\n$ migrate\n~~~\n",
    );
    repo.commit("docs");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("connect", &["--mode", "graph", "--relation", "callers"]);
    let readme = v["results"].as_array().and_then(|rs| rs.iter().find(|r| r["path"] == "README.md"));
    // Shown by the section whose example calls it, after the code that calls it.
    assert_eq!(readme.map(|r| (r["kind"].as_str(), r["start_line"].as_u64(), r["rank"].as_u64())), Some((Some("section"), Some(1), Some(2))), "{v}");
    assert_eq!(located(&v)[0], ("zeta/app.py", "serve"), "{v}");
    let v = repo.query("migrate", &["--mode", "graph", "--relation", "callers"]);
    assert!(!located(&v).iter().any(|r| r.0 == "README.md"), "a block without a language is not code: {v}");
    let v = repo.query("handler", &["--mode", "symbol"]);
    assert!(v["results"].as_array().is_none_or(|r| r.is_empty()), "{v}");
}

#[test]
fn protobuf_messages_are_in_the_graph_where_they_are_used() {
    let repo = TestRepo::new();
    repo.write("proto/shop/v1/item.proto", "syntax = \"proto3\";\npackage shop.v1;\n\n// An item for sale.\nmessage Item {\n  string sku = 1;\n}\n");
    repo.write(
        "proto/shop/v1/store.proto",
        "syntax = \"proto3\";\npackage shop.v1;\n\nimport \"shop/v1/item.proto\";\n\nmessage GetItemRequest {\n  string sku = 1;\n}\n\nservice Store {\n  rpc GetItem(GetItemRequest) returns (Item);\n}\n",
    );
    repo.commit("protos");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let users = symbols(&repo.query("Item", &["--mode", "graph", "--relation", "callers"]));
    assert!(users.contains(&"Store.GetItem".to_string()), "{users:?}");
    let v = repo.query("what imports item.proto", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "proto/shop/v1/store.proto"), "{v}");
    let v = repo.query("GetItem", &["--mode", "symbol", "--lang", "proto"]);
    assert_eq!((v["results"][0]["symbol"].as_str(), v["results"][0]["kind"].as_str()), (Some("Store.GetItem"), Some("method")), "{v}");
}

#[test]
fn erlang_calls_across_modules_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write(
        "src/shop_price.erl",
        "-module(shop_price).\n-export([format/1]).\n\n%% Cents as a price text.\nformat(Cents) ->\n    io_lib:format(\"~.2f\", [Cents / 100]).\n",
    );
    repo.write(
        "src/shop_cart.erl",
        "-module(shop_cart).\n-export([total/1]).\n-include(\"shop.hrl\").\n\ntotal([]) -> shop_price:format(0);\ntotal(Items) -> shop_price:format(lists:sum(Items)).\n",
    );
    repo.write("src/shop.hrl", "-record(item, {sku, cents}).\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("src/shop_cart.erl", "shop_cart:total")), "{v}");
    let v = repo.query("what imports shop.hrl", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "src/shop_cart.erl"), "{v}");
}

#[test]
fn ocaml_calls_across_modules_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("src/price.ml", "(* Cents as a price text. *)\nlet format cents = Printf.sprintf \"%d.%02d\" (cents / 100) (cents mod 100)\n");
    repo.write("src/price.mli", "val format : int -> string\n(** Cents as a price text. *)\n");
    repo.write(
        "src/cart.ml",
        "open Price\n\nlet total items = format (List.fold_left ( + ) 0 items)\n\nlet receipt items = Price.format (List.length items)\n",
    );
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("src/cart.ml", "total")) && located(&v).contains(&("src/cart.ml", "receipt")), "{v}");
    let v = repo.query("what imports price.ml", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "src/cart.ml"), "{v}");
    let v = repo.query("format", &["--mode", "symbol", "--lang", "ocaml-interface"]);
    assert_eq!(v["results"][0]["path"], "src/price.mli", "{v}");
}

#[test]
fn objc_messages_across_files_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("ios/RNPrice.h", "#import <Foundation/Foundation.h>\n\n@interface RNPrice : NSObject\n- (NSString *)formatCents:(NSInteger)cents;\n@end\n");
    repo.write(
        "ios/RNPrice.m",
        "#import \"RNPrice.h\"\n\n@implementation RNPrice\n\n// Cents as a price text.\n- (NSString *)formatCents:(NSInteger)cents\n{\n  return [NSString stringWithFormat:@\"%ld.%02ld\", (long)(cents / 100), (long)(cents % 100)];\n}\n\n@end\n",
    );
    repo.write(
        "ios/RNCart.m",
        "#import \"RNPrice.h\"\n\n@implementation RNCart\n\n- (NSString *)total\n{\n  RNPrice *price = [[RNPrice alloc] init];\n  return [price formatCents:1250];\n}\n\n@end\n",
    );
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("formatCents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("ios/RNCart.m", "RNCart.total")), "{v}");
    let v = repo.query("what imports RNPrice.h", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "ios/RNCart.m"), "{v}");
    // The header reads as Objective-C: its class is one.
    let v = repo.query("RNPrice", &["--mode", "symbol", "--lang", "objc"]);
    assert!(located(&v).contains(&("ios/RNPrice.h", "RNPrice")), "{v}");
}

#[test]
fn julia_calls_across_included_files_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("src/Shop.jl", "module Shop\n\ninclude(\"price.jl\")\ninclude(\"cart.jl\")\n\nend\n");
    repo.write(
        "src/price.jl",
        "\"\"\"\n    format_cents(c)\n\nCents as a price text.\n\"\"\"\nformat_cents(c) = string(div(c, 100), \".\", lpad(rem(c, 100), 2, \"0\"))\n",
    );
    repo.write("src/cart.jl", "function total(items)\n    format_cents(sum(items))\nend\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format_cents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("src/cart.jl", "total")), "{v}");
    let v = repo.query("what imports price.jl", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "src/Shop.jl"), "{v}");
}

#[test]
fn r_calls_across_sourced_files_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("R/price.R", "#' Cents as a price text.\nformat_cents <- function(cents) {\n  sprintf(\"%d.%02d\", cents %/% 100, cents %% 100)\n}\n");
    repo.write("analysis/report.R", "source(\"R/price.R\")\nlibrary(dplyr)\n\ntotal <- function(items) {\n  format_cents(sum(items))\n}\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format_cents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("analysis/report.R", "total")), "{v}");
    let v = repo.query("what imports price.R", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "analysis/report.R"), "{v}");
}

#[test]
fn sql_uses_of_tables_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("db/schema.sql", "-- Who places orders.\nCREATE TABLE customers (\n  id serial PRIMARY KEY,\n  name text NOT NULL\n);\n\nCREATE TABLE \"orders\" (\n  id serial PRIMARY KEY,\n  customer_id integer NOT NULL REFERENCES customers(id),\n  total_cents integer NOT NULL\n);\n");
    repo.write("db/reports.sql", "-- Revenue per customer.\nCREATE VIEW customer_revenue AS\n  SELECT c.name, sum(o.total_cents) AS cents\n  FROM customers c JOIN orders o ON o.customer_id = c.id\n  GROUP BY c.name;\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("orders", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("db/reports.sql", "customer_revenue")), "{v}");
    let v = repo.query("customers", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("db/schema.sql", "orders")), "{v}");
}

#[test]
fn clojure_calls_across_required_namespaces_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write(
        "src/shop/price.clj",
        "(ns shop.price)\n\n(defn format-cents\n  \"Cents as a price text.\"\n  [cents]\n  (format \"%d.%02d\" (quot cents 100) (rem cents 100)))\n",
    );
    repo.write("src/shop/cart.cljc", "(ns shop.cart\n  (:require [shop.price :as p]))\n\n(defn total [items]\n  (p/format-cents (reduce + items)))\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format-cents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("src/shop/cart.cljc", "total")), "{v}");
    let v = repo.query("what imports price.clj", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "src/shop/cart.cljc"), "{v}");
}

#[test]
fn perl_calls_across_used_packages_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("lib/Shop/Price.pm", "package Shop::Price;\nuse strict;\n\n# Cents as a price text.\nsub format_cents {\n    my ($cents) = @_;\n    return sprintf('%d.%02d', int($cents / 100), $cents % 100);\n}\n\nsub currency { return 'EUR' }\n\n1;\n");
    // `use parent` names the module of the parent class; `my ($self, %opts) = @_`
    // takes the invocant (a method); `currency => …` is a hash key, not a call.
    repo.write("lib/Shop/Cart.pm", "package Shop::Cart;\nuse strict;\nuse parent 'Shop::Price';\n\nsub total {\n    my ($self, %opts) = @_;\n    return Shop::Price::format_cents($self->sum, currency => 'EUR');\n}\n\n1;\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("format_cents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("lib/Shop/Cart.pm", "Shop::Cart::total")), "{v}");
    let v = repo.query("what imports Price.pm", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "lib/Shop/Cart.pm"), "{v}");
    let v = repo.query("total", &["--mode", "symbol"]);
    assert_eq!(v["results"][0]["kind"], "method", "{v}");
    let v = repo.query("Shop::Cart::total", &["--mode", "graph", "--relation", "callees"]);
    let callees: Vec<&str> = v["results"].as_array().into_iter().flatten().filter_map(|r| r["symbol"].as_str()).collect();
    assert!(callees.contains(&"Shop::Price::format_cents") && !callees.iter().any(|c| c.ends_with("currency")), "{v}");
    // The package's own subs by their bare names; the parent's through `use parent`.
    let v = repo.query("Shop::Price", &["--mode", "graph", "--relation", "implementers"]);
    assert!(located(&v).contains(&("lib/Shop/Cart.pm", "Shop::Cart")), "{v}");
}

#[test]
fn terraform_uses_across_files_and_local_modules_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("infra/variables.tf", "variable \"bucket_name\" {\n  description = \"Name of the logs bucket.\"\n  type        = string\n}\n");
    repo.write(
        "infra/main.tf",
        "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = var.bucket_name\n}\n\nmodule \"cdn\" {\n  source = \"./modules/cdn\"\n  origin = aws_s3_bucket.logs.bucket_domain_name\n}\n",
    );
    repo.write("infra/modules/cdn/main.tf", "resource \"aws_cloudfront_distribution\" \"this\" {\n  origin {\n    domain_name = var.origin\n  }\n}\n");
    // Each module declares its own variables: `var.origin` is its directory's.
    repo.write("infra/modules/cdn/variables.tf", "variable \"origin\" {}\n");
    repo.write("infra/origin.tf", "variable \"origin\" {}\n");
    repo.commit("infra");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("bucket_name", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("infra/main.tf", "aws_s3_bucket.logs")), "{v}");
    let v = repo.query("aws_s3_bucket.logs", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("infra/main.tf", "cdn")), "{v}");
    let v = repo.query("origin", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("infra/modules/cdn/main.tf", "aws_cloudfront_distribution.this")), "{v}");
    let v = repo.query("what imports infra/modules/cdn/main.tf", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "infra/main.tf"), "{v}");
}

#[test]
fn dart_calls_across_libraries_are_in_the_graph() {
    let repo = TestRepo::new();
    repo.write("lib/src/price.dart", "/// Cents as a price text.\nString formatCents(int cents) => '${cents ~/ 100}.${cents % 100}';\n");
    repo.write(
        "lib/src/cart.dart",
        "import 'price.dart';\n\nclass Cart {\n  final List<int> items = [];\n\n  String total() => formatCents(items.fold(0, (a, b) => a + b));\n}\n",
    );
    repo.write("bin/shop.dart", "import 'package:shop/src/cart.dart';\n\nvoid main() {\n  print(Cart().total());\n}\n");
    repo.commit("shop");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("formatCents", &["--mode", "graph", "--relation", "callers"]);
    assert!(located(&v).contains(&("lib/src/cart.dart", "Cart.total")), "{v}");
    let v = repo.query("what imports cart.dart", &["--mode", "graph"]);
    assert!(located(&v).iter().any(|r| r.0 == "bin/shop.dart"), "{v}");
}

#[test]
fn graph_mode_answers_who_implements_a_trait_or_extends_a_class() {
    let repo = TestRepo::new();
    repo.write(
        "src/resolve.rs",
        "pub trait Resolver {\n    fn resolve(&self, host: &str) -> Vec<String>;\n}\n\npub struct StdResolver;\n\nimpl Resolver for StdResolver {\n    fn resolve(&self, host: &str) -> Vec<String> {\n        vec![host.to_string()]\n    }\n}\n\nimpl StdResolver {\n    pub fn new() -> Self {\n        StdResolver\n    }\n}\n",
    );
    repo.write(
        "src/cache.rs",
        "use crate::resolve::Resolver;\n\npub struct CachingResolver {\n    hits: usize,\n}\n\nimpl Resolver for CachingResolver {\n    fn resolve(&self, host: &str) -> Vec<String> {\n        Vec::new()\n    }\n}\n",
    );
    repo.write("app/adapters.py", "class BaseAdapter:\n    def send(self, request):\n        raise NotImplementedError\n\n\nclass HTTPAdapter(BaseAdapter):\n    def send(self, request):\n        return request\n\n    def close(self):\n        pass\n");
    repo.commit("traits");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("which types implement the Resolver trait", &["--mode", "graph"]);
    assert_eq!(v["analysis"]["graph"]["relation"], "implementers", "{}", v["analysis"]);
    let got = symbols(&v);
    for want in ["StdResolver", "StdResolver::resolve", "CachingResolver", "CachingResolver::resolve"] {
        assert!(got.contains(&want.to_string()), "{want} in {got:?}");
    }
    assert!(!got.contains(&"StdResolver::new".to_string()), "not an implementation of the trait: {got:?}");
    let got = symbols(&repo.query("subclasses of BaseAdapter", &["--mode", "graph"]));
    assert_eq!(&got[..2], &["HTTPAdapter".to_string(), "HTTPAdapter.send".to_string()], "{got:?}");

    // Go: satisfied by method set, nothing declared.
    repo.write(
        "shapes/shapes.go",
        "package shapes\n\ntype Shape interface {\n\tArea() float64\n}\n\ntype Square struct{ side float64 }\n\nfunc (s Square) Area() float64 { return s.side * s.side }\n\ntype Label struct{}\n\nfunc (l Label) Text() string { return \"\" }\n\ntype badShape struct{ msg string }\n\nfunc (e *badShape) Error() string { return e.msg }\n",
    );
    repo.commit("go");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let got = symbols(&repo.query("which types implement the Shape interface", &["--mode", "graph"]));
    assert_eq!(&got[..2], &["Square".to_string(), "Square.Area".to_string()], "{got:?}");
    assert!(!got.contains(&"Label".to_string()), "{got:?}");
    let got = symbols(&repo.query("which types implement the error interface", &["--mode", "graph"]));
    assert_eq!(&got[..2], &["badShape".to_string(), "badShape.Error".to_string()], "{got:?}");
}

#[test]
fn a_body_change_updates_the_graph_like_a_full_build() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    // `health` now calls parse_port; `start` stops calling load_config.
    repo.write(
        "app/server.py",
        SERVER.replace("    return \"ok\"", "    return parse_port(\"1\")").replace("    cfg = load_config(argv[2])\n", "    cfg = None\n"),
    );
    repo.commit("edit bodies");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let inc = repo.rag_ok(&["dump-graph"]);
    let full_dir = repo.path().join("full-index");
    repo.rag_ok(&["index", "--full", "-q", "--no-semantic", "--index-dir", full_dir.to_str().expect("utf-8")]);
    let full = repo.rag_ok(&["dump-graph", "--index-dir", full_dir.to_str().expect("utf-8")]);
    assert_eq!(inc, full);
    let callers = symbols(&repo.query("callers of parse_port", &["--mode", "graph"]));
    assert!(callers.contains(&"health".to_string()), "{callers:?}");
    let callers = symbols(&repo.query("callers of load_config", &["--mode", "graph"]));
    assert!(!callers.contains(&"start".to_string()), "{callers:?}");
}

/// A name looked up in hybrid mode: its definition first, then where the
/// code uses it (its callers, through the graph) ahead of other mentions;
/// its tests are not pulled in as usages.
#[test]
fn a_looked_up_name_brings_its_callers_but_not_its_tests() {
    let repo = TestRepo::new();
    repo.write("lib/ledger.py", "def settle_ledger(entries):\n    return sum(entries)\n");
    repo.write("app/close.py", "from lib.ledger import settle_ledger\n\n\ndef close_month(book):\n    return settle_ledger(book.entries)\n");
    repo.write("tests/test_ledger.py", "from lib.ledger import settle_ledger\n\n\ndef test_settles():\n    assert settle_ledger([1, 2]) == 3\n");
    repo.commit("base");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("settle_ledger", &["--mode", "hybrid"]);
    assert_eq!(v["retrievers"].as_array().map(|r| r.iter().any(|x| x == "graph")), Some(true), "{v}");
    let results = v["results"].as_array().expect("results");
    assert_eq!(results[0]["symbol"], "settle_ledger", "{v}");
    let caller = results.iter().find(|r| r["symbol"] == "close_month").expect("the caller is among the results");
    assert!(caller["signals"]["graph"].is_number(), "{caller}");
    assert!(results.iter().filter(|r| r["path"] == "tests/test_ledger.py").all(|r| r["signals"]["graph"].is_null()), "{v}");
}

#[test]
fn the_steps_of_the_best_candidate_follow_it() {
    // The best candidate drives the process the question asks about; its
    // steps say little of it in words (BM25 ranks them after eight hooks that
    // do), and hooks' helpers fill the first places of the `callees` list.
    let repo = TestRepo::new();
    repo.write(
        "web/sessions.py",
        "def follow_redirects(resp, send):\n    \"\"\"Redirects are followed here, from start to finish: each redirect response leads to the next request.\"\"\"\n    while resp.status in (301, 302, 303, 307, 308):\n        url = next_location(resp)\n        strip_credentials(resp, url)\n        pick_method(resp)\n        resp = send(resp.request, url)\n    return resp\n\n\n\
         def next_location(resp):\n    # The redirect target.\n    return resp.headers[\"location\"]\n\n\n\
         def strip_credentials(resp, url):\n    # A redirect to another host must not carry the credentials.\n    if resp.request.host != url.host:\n        resp.request.headers.pop(\"Authorization\", None)\n\n\n\
         def pick_method(resp):\n    # A 303 redirect turns the method into GET.\n    if resp.status == 303:\n        resp.request.method = \"GET\"\n",
    );
    let mut hooks = String::from("def audit(resp):\n    return resp\n\n\n");
    for k in 1..=8 {
        let body: String = (0..20).map(|i| format!("    total += {i} * len(resp.history)\n")).collect();
        hooks.push_str(&format!("def tally_{k}(resp):\n    total = 0\n{body}    return total\n\n\n"));
        hooks.push_str(&format!(
            "def on_redirect_{k}(resp):\n    \"\"\"Called when redirects are followed.\"\"\"\n    audit(resp)\n    return tally_{k}(resp)\n\n\n"
        ));
    }
    repo.write("web/hooks.py", &hooks);
    repo.commit("base");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("how are redirects followed from start to finish", &[]);
    assert_eq!(v["analysis"]["intent"], "concept", "{v}");
    let top: Vec<&str> = v["results"].as_array().expect("results").iter().take(6).filter_map(|r| r["symbol"].as_str()).collect();
    assert_eq!(top[0], "follow_redirects", "{v}");
    // BM25 alone ranks the steps 11th to 13th; the fitted stage may place the
    // two hooks that say the most ("Called when redirects are followed")
    // among them, not the six others.
    let steps: Vec<&str> = top[1..].iter().copied().filter(|s| !s.starts_with("on_redirect_")).collect();
    let mut sorted = steps.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["next_location", "pick_method", "strip_credentials"], "{v}");
    assert_eq!(top[1], steps[0], "the first step follows its driver: {v}");
}

#[test]
fn a_concept_question_brings_what_its_best_candidates_call() {
    // Three thin entry points say what the question says; the work is done by
    // a helper none of its words name, and a test calls it too.
    let repo = TestRepo::new();
    let entry = |shell: &str| {
        format!("def gen_{shell}_completion(out):\n    \"\"\"Write the {shell} completion script for the command.\"\"\"\n    return render_template(out, \"{shell}\")\n\n\n")
    };
    let mut cli = String::from("from shells.render import render_template\n\n\n");
    for shell in ["bash", "zsh", "fish"] {
        cli.push_str(&entry(shell));
    }
    repo.write("shells/cli.py", &cli);
    repo.write("shells/render.py", "def render_template(out, flavour):\n    body = TEMPLATES[flavour].format(name=out.name)\n    out.write(body)\n    return len(body)\n\n\nTEMPLATES = {}\n");
    repo.write("shells/other.py", "def parse_words(line):\n    return line.split()\n");
    repo.write("tests/test_render.py", "from shells.render import render_template\n\n\ndef test_render():\n    assert render_template(None, 'bash')\n");
    repo.commit("base");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("how are the completion scripts for bash, zsh and fish generated", &[]);
    assert_eq!(v["analysis"]["intent"], "concept", "{v}");
    assert!(v["retrievers"].as_array().is_some_and(|r| r.iter().any(|x| x == "callees")), "{v}");
    let results = v["results"].as_array().expect("results");
    // Called by all three entry points: the first of the list (no BM25 list has it).
    let helper = results.iter().find(|r| r["symbol"] == "render_template").expect("the helper is among the results");
    assert_eq!(helper["signals"]["callees"], 1, "{v}");
    assert!(helper["signals"]["bm25"].is_null(), "{v}");
    assert!(results.iter().all(|r| r["symbol"] != "parse_words"), "{v}");
    // Keyword mode alone has no such list.
    let v = repo.query("how are the completion scripts for bash, zsh and fish generated", &["--mode", "keyword"]);
    assert!(v["results"].as_array().expect("results").iter().all(|r| r["symbol"] != "render_template"), "{v}");
}

#[test]
fn patterns_of_a_repo_with_known_conventions() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let patterns: Value = serde_json::from_str(&repo.rag_ok(&["patterns", "--json"])).expect("json");
    let counts: BTreeMap<String, u64> =
        patterns.as_array().expect("array").iter().map(|p| (p["key"].as_str().unwrap_or_default().to_string(), p["count"].as_u64().unwrap_or(0))).collect();
    let expect =
        [("decorator:@app.route", 2), ("route:app.route", 2), ("log:log.error:%", 2), ("test:function", 2), ("route:router.get", 0), ("catch:callback", 0)];
    for (key, n) in expect {
        if n > 0 {
            assert_eq!(counts.get(key), Some(&n), "{key}: {counts:?}");
        } else {
            // Seen once: not a convention.
            assert!(!counts.contains_key(key), "{key}: {counts:?}");
        }
    }
    // Each has a description and an example with a location.
    for p in patterns.as_array().expect("array") {
        assert!(!p["description"].as_str().unwrap_or_default().is_empty());
        assert!(p["examples"][0]["start_line"].as_u64().unwrap_or(0) >= 1);
    }
    // One-off conventions are not patterns (a single `router.post`).
    assert!(!counts.contains_key("route:router.post"), "{counts:?}");
    // The question about conventions hits PATTERNS, even without vectors.
    let out = repo.rag(&["query", "how does this project log errors?", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let kinds: Vec<&str> = v["results"].as_array().expect("results").iter().filter_map(|r| r["kind"].as_str()).collect();
    assert!(kinds.contains(&"pattern"), "{v}");
    let top_pattern = v["results"].as_array().expect("results").iter().find(|r| r["kind"] == "pattern").expect("a pattern");
    assert!(top_pattern["symbol"].as_str().unwrap_or_default().starts_with("log:"), "{v}");
    // Vectors were turned off by choice (--no-semantic): nothing is suggested.
    assert!(!stderr(&out).contains("without dense"), "{}", stderr(&out));
}

#[test]
fn context_respects_the_budget_and_cites_every_piece() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    for budget in [0usize, 40, 150, 400, 1200, 8000] {
        let b = budget.to_string();
        let v: Value = serde_json::from_str(&repo.rag_ok(&["query", "read the configuration file", "--context", "--budget", &b, "--json"])).expect("json");
        let tokens = v["tokens"].as_u64().expect("tokens") as usize;
        assert!(tokens <= budget, "budget {budget}: {tokens} tokens");
        let markdown = v["markdown"].as_str().expect("markdown");
        let pieces = v["pieces"].as_array().expect("pieces");
        let mut ranges: Vec<(String, u64, u64)> = Vec::new();
        for p in pieces {
            let citation = p["citation"].as_str().expect("citation");
            assert!(markdown.contains(citation), "budget {budget}: {citation} not cited");
            let (path, s, e) = (p["path"].as_str().expect("path").to_string(), p["start_line"].as_u64().expect("s"), p["end_line"].as_u64().expect("e"));
            assert_eq!(citation, format!("{path}:{s}-{e}"));
            for (q, a, b) in &ranges {
                assert!(!(q == &path && s <= *b && *a <= e), "budget {budget}: {path}:{s}-{e} overlaps {a}-{b}");
            }
            ranges.push((path, s, e));
            // Content is verbatim from the file.
            let file = std::fs::read_to_string(repo.path().join(p["path"].as_str().expect("path"))).expect("file");
            let lines: Vec<&str> = file.lines().collect();
            assert_eq!(p["content"].as_str().expect("content"), lines[s as usize - 1..e as usize].join("\n"));
        }
        for s in v["sections"].as_array().expect("sections") {
            assert!(s["used"].as_u64() <= s["allowed"].as_u64(), "{s}");
        }
        if budget >= 1200 {
            assert!(markdown.contains("load_config"), "{markdown}");
            // File context: imports, labelled with the outline and the import graph.
            assert!(markdown.contains("> defines: ") && markdown.contains("function load_config "), "{markdown}");
            assert!(markdown.contains("imported by: app/server.py"), "{markdown}");
            let sections: Vec<&str> = pieces.iter().filter_map(|p| p["section"].as_str()).collect();
            assert!(sections.contains(&"code") && sections.contains(&"file_context"), "{sections:?}");
        }
    }
    // Markdown by default.
    let md = repo.rag_ok(&["query", "read the configuration file", "--context", "--budget", "800"]);
    assert!(md.starts_with("# Context for: read the configuration file"), "{md}");
}

#[test]
fn hybrid_modes_and_options() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    // An identifier: the definition first, with its symbol rank as a signal.
    let v = repo.query("parse_port", &[]);
    assert_eq!(v["analysis"]["intent"], "identifier");
    assert_eq!(v["results"][0]["symbol"], "parse_port");
    assert_eq!(v["results"][0]["signals"]["symbol"], 1);
    // --expand parent lifts a method to its class.
    repo.write("app/model.py", "class Invoice:\n    \"\"\"An invoice.\"\"\"\n\n    def total(self):\n        return sum(self.lines)\n\n    def tax(self):\n        return self.total() * 0.2\n");
    repo.commit("model");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("Invoice.tax", &["--expand", "parent", "--limit", "3"]);
    assert_eq!(v["results"][0]["symbol"], "Invoice", "{v}");
    // No result repeats the lines of a better one.
    let v = repo.query("load configuration file error", &["--limit", "20"]);
    let hits: Vec<(String, u64, u64, String)> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap_or("").into(),
                r["start_line"].as_u64().unwrap_or(0),
                r["end_line"].as_u64().unwrap_or(0),
                r["kind"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    for (i, a) in hits.iter().enumerate() {
        for b in &hits[..i] {
            let outline = |k: &str| matches!(k, "file" | "class" | "interface" | "enum" | "pattern");
            if a.0 == b.0 && !outline(&a.3) && !outline(&b.3) && a.1 <= b.2 && b.1 <= a.2 {
                let overlap = a.2.min(b.2) - a.1.max(b.1) + 1;
                let smaller = (a.2 - a.1 + 1).min(b.2 - b.1 + 1);
                assert!(overlap * 2 < smaller, "{a:?} repeats {b:?}");
            }
        }
    }
    // MMR keeps the same set, possibly reordered.
    let plain = repo.query("load configuration file error", &["--limit", "5"]);
    let diverse = repo.query("load configuration file error", &["--limit", "5", "--diversity", "0.5"]);
    assert_eq!(plain["results"].as_array().map(Vec::len), diverse["results"].as_array().map(Vec::len));
    // --rerank without a reranker says so and answers anyway.
    let out = repo.rag(&["query", "parse_port", "--rerank", "--json"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("no reranker configured"), "{}", stderr(&out));
}

#[test]
fn an_empty_index_answers_with_a_clear_message() {
    let repo = TestRepo::new();
    repo.write("data.bin", [0u8, 159, 146, 150, 0, 1, 2]);
    repo.commit("binary only");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let out = repo.rag(&["query", "anything at all", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the index is empty"), "{}", stderr(&out));
    let out = repo.rag(&["query", "what calls nothing_here", "--mode", "graph", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn hybrid_with_the_semantic_layer() {
    require_model();
    let repo = repo();
    repo.rag_ok(&["index", "-q"]);
    let v = repo.query("read the configuration file from disk", &[]);
    let retrievers: Vec<&str> = v["retrievers"].as_array().expect("retrievers").iter().filter_map(|r| r.as_str()).collect();
    assert!(retrievers.contains(&"dense") && retrievers.contains(&"bm25"), "{v}");
    assert_eq!(v["results"][0]["symbol"], "load_config", "{v}");
    let s = &v["results"][0]["signals"];
    assert!(s["dense"].as_u64().is_some() && s["bm25"].as_u64().is_some(), "{v}");
    // A concept question is searched again with the names dense found nearest.
    assert_eq!(v["analysis"]["intent"], "concept", "{v}");
    assert!(retrievers.contains(&"feedback") && s["feedback"].as_u64().is_some(), "{v}");
    let v = repo.query("read the configuration file from disk", &["--at-commit", "--mode", "keyword"]);
    assert!(v["retrievers"].as_array().is_some_and(|r| !r.iter().any(|r| r == "feedback")), "keyword mode alone: {v}");
    // PATTERNS through vectors.
    let v = repo.query("how does this project log errors?", &[]);
    let pattern = v["results"].as_array().expect("results").iter().find(|r| r["kind"] == "pattern").expect("a pattern hit");
    assert!(pattern["symbol"].as_str().unwrap_or_default().starts_with("log:"), "{v}");
    assert!(pattern["signals"]["patterns"].as_u64().is_some());
    let counts: Value = repo.status(&[]);
    assert!(counts["semantic"]["counts"]["patterns"].as_u64().unwrap_or(0) >= 3, "{counts}");
}

#[test]
fn an_issue_report_with_a_traceback_finds_the_frame_first() {
    let repo = repo();
    repo.write(
        "docs/configuration.md",
        "# Configuration\n\nThe server calls load_config and uses the port. It imports the configuration file and \
         reports errors when the configuration cannot be read: an error is raised and logged.\n",
    );
    repo.commit("docs");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    // What an agent pastes: prose full of relation words ("calls", "uses",
    // "imports"), a traceback, and a reproduction.
    let issue = "Server crashes on start when the port is not a number\n\n\
        When I start the server it calls the config loader and then uses the port from argv, but it \
        crashes instead of reporting a clear error. It also imports the configuration file twice.\n\n\
        ```\n\
        Traceback (most recent call last):\n  \
        File \"app/server.py\", line 19, in start\n    \
        port = parse_port(argv[1])\n  \
        File \"app/util.py\", line 20, in parse_port\n    \
        return int(text)\n\
        ValueError: invalid literal for int() with base 10: 'eighty'\n\
        ```\n\n\
        Expected: a clear message naming the bad port.";
    let v = repo.query(issue, &["--limit", "10"]);
    assert_eq!(v["analysis"]["intent"], "document", "{}", v["analysis"]);
    assert!(v["analysis"]["graph"].is_null(), "relation words in an issue are incidental: {}", v["analysis"]);
    let signals = &v["analysis"]["signals"];
    assert_eq!(signals["frames"][1]["function"], "parse_port", "{signals}");
    assert_eq!(signals["frames"][1]["path"], "app/util.py", "{signals}");
    let top: Vec<String> = symbols(&v).into_iter().take(2).collect();
    assert!(top.contains(&"parse_port".to_string()), "the innermost frame's function comes first: {top:?}");
    assert_ne!(v["results"][0]["path"], "docs/configuration.md", "{v}");
    // Keyword mode reads the same signals.
    let k = repo.query(issue, &["--mode", "keyword", "--limit", "3"]);
    assert!(symbols(&k).contains(&"parse_port".to_string()), "{k}");
}

#[test]
fn an_issue_is_read_for_its_prose_not_its_log_imports_or_environment() {
    let repo = TestRepo::new();
    // The answer: what the prose is about.
    repo.write(
        "pkg/exporter.py",
        "def public_names(module):\n    names = getattr(module, \"__all__\", None)\n    if not names:\n        return [n for n in dir(module) if not n.startswith(\"_\")]\n    return names\n",
    );
    // What the pasted session log's words match.
    repo.write(
        "pkg/report.py",
        "def session_header(platform, rootdir, cachedir, plugins, collected):\n    line = f\"platform {platform} rootdir {rootdir} cachedir {cachedir}\"\n    return line + f\" plugins {plugins} collected {collected} items passed failed\"\n",
    );
    // What the environment listing names.
    repo.write("pkg/versions.py", "def installed():\n    return {\"numpy\": numpy_version(), \"pandas\": pandas_version(), \"scipy\": scipy_version()}\n");
    // An import block names the modules an issue names.
    repo.write(
        "pkg/__init__.py",
        "from pkg.exporter import public_names\nfrom pkg.report import session_header\nfrom pkg.versions import installed\nimport module\n",
    );
    repo.commit("pkg");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let issue = "exporter: an empty `__all__` of a module is ignored\n\n\
        When a module sets `__all__` to an empty list, public_names still returns every public name of the module.\n\n\
        ```\n\
        platform linux rootdir /home/me cachedir .cache plugins xdist collected 3 items\n\
        session header: 3 passed, 1 failed, platform linux, rootdir /home/me, cachedir .cache\n\
        ```\n\n\
        Environment:\n\
        numpy: 1.18.5\n\
        pandas: 1.0.5\n\
        scipy: 1.5.0\n";
    for mode in ["hybrid", "keyword"] {
        let v = repo.query(issue, &["--mode", mode, "--limit", "5"]);
        assert_eq!(v["results"][0]["path"], "pkg/exporter.py", "{mode}: {v}");
    }
    // A dunder name is a name, not the stop word inside it.
    let v = repo.query("__all__", &["--mode", "keyword"]);
    assert_eq!(v["results"][0]["path"], "pkg/exporter.py", "{v}");
}

#[test]
fn an_option_name_is_searched_for_not_parsed() {
    let repo = TestRepo::new();
    repo.write("cli.py", "def parse(argv):\n    if \"--dry-run\" in argv:\n        return None\n    return argv\n");
    repo.write("other.py", "def run():\n    return 1\n");
    repo.commit("cli");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    // `--dry-run` is the text of the query, and flags after it still apply.
    let v = repo.query("--dry-run", &["--mode", "keyword"]);
    assert_eq!(v["query"], "--dry-run", "{v}");
    // The verbatim occurrence first, though `run` in other.py matches a word
    // of it by symbol name.
    assert_eq!(v["results"][0]["path"], "cli.py", "{v}");
    assert_eq!(v["results"][0]["signals"]["bm25"], 1, "{v}");
    let h = repo.query("--dry-run", &[]);
    assert_eq!(h["analysis"]["literals"][0]["text"], "--dry-run", "{h}");
    assert_eq!(h["results"][0]["path"], "cli.py", "{h}");

    // A flag library takes the bare name: the definition is found by it,
    // before a comment that mentions the option as typed.
    repo.write("flags.go", "package main\n\n// NoDesc: the user typed --no-descriptions.\nfunc mention() {}\n\nconst noDescFlag = \"no-descriptions\"\n\nfunc register(fs *FlagSet) {\n\tfs.Bool(noDescFlag, false, \"no descriptions\")\n}\n");
    repo.commit("flags");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("--no-descriptions", &["--mode", "keyword"]);
    let lines: Vec<(String, u64)> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["path"].as_str().unwrap_or("").to_string(), r["start_line"].as_u64().unwrap_or(0)))
        .collect();
    let definition = lines.iter().position(|(p, l)| p == "flags.go" && *l <= 6 && *l > 3);
    let mention = lines.iter().position(|(p, l)| p == "flags.go" && *l <= 4);
    assert!(definition.is_some(), "the const holding the bare name is found: {v}");
    assert!(mention.is_none_or(|m| definition.is_some_and(|d| d < m)), "definition first: {lines:?}");
}

/// Several files share the words (stems) of a message; one holds it as
/// written. Quoted in a question or pasted alone, that one comes first.
#[test]
fn a_quoted_literal_that_occurs_once_ranks_first() {
    let repo = TestRepo::new();
    repo.write(
        "net/connect.py",
        "class ConnectionRefused(Exception):\n    \"\"\"The connection was refused.\"\"\"\n\n\ndef connect(host, refused_ok=False):\n    \"\"\"Connect to the host; a refused connection is retried.\"\"\"\n    return open_connection(host)\n\n\ndef refuse_connection(conn):\n    conn.refuse()\n",
    );
    repo.write("net/proxy.py", "def tunnel(proxy):\n    if not proxy.ok:\n        raise OSError(\"Connection refused by the proxy\")\n    return proxy\n");
    repo.write("net/retry.py", "def retry_refused(connect):\n    # connections refused by a proxy are retried\n    return connect()\n");
    repo.commit("net");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    for (query, mode) in [
        ("why do I get \"Connection refused by the proxy\"?", "hybrid"),
        ("why do I get \"Connection refused by the proxy\"?", "keyword"),
        ("Connection refused by the proxy", "hybrid"),
        ("Connection refused by the proxy", "keyword"),
    ] {
        let v = repo.query(query, &["--mode", mode]);
        assert_eq!(v["results"][0]["path"], "net/proxy.py", "{query} ({mode}): {v}");
    }
    let v = repo.query("why do I get \"Connection refused by the proxy\"?", &[]);
    assert_eq!(v["analysis"]["literals"][0]["text"], "Connection refused by the proxy", "{}", v["analysis"]);
    assert_eq!(v["analysis"]["literals"][0]["source"], "quoted", "{}", v["analysis"]);
    assert_eq!(v["results"][0]["signals"]["exact"], 1, "{v}");
    // Case and punctuation count: another casing is no verbatim match.
    let v = repo.query("\"connection REFUSED by the proxy\"", &[]);
    assert!(v["results"][0]["signals"]["exact"].is_null(), "{v}");
    // Translation catalogs repeat the message in every language: it is still
    // rare in the code, and an issue quoting it with its level and a value in
    // place of the format finds where it is raised.
    for lang in 0..30 {
        repo.write(&format!("net/locale/l{lang}/messages.po"), "msgid \"Connection refused by the proxy\"\nmsgstr \"\"\n");
    }
    repo.write("net/tables.py", "def number(table):\n    log.warning(\"no number is assigned for %s\", table)\n");
    repo.commit("catalogs");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let v = repo.query("\"Connection refused by the proxy\"", &[]);
    assert_eq!(v["results"][0]["path"], "net/proxy.py", "{v}");
    let issue = "Numbering tables warns\n\nBuilding the docs prints `WARNING: no number is assigned for table` for every \
        table since the upgrade, although numfig is on and every table has a caption. Expected: no warning, the tables numbered.";
    let v = repo.query(issue, &[]);
    assert_eq!(v["analysis"]["intent"], "document", "{v}");
    assert_eq!(v["results"][0]["path"], "net/tables.py", "{v}");
}

/// `--files`: files ranked by all their evidence, each with its best
/// chunks; the results are those chunks, file by file; `--limit` counts files.
#[test]
fn files_to_open_rank_by_all_their_evidence() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let issue = "The app fails to start when the configuration file cannot be read\n\nload_config raises AppError but start() in the server never reports the path, and parse_port \
        logs a bad port without naming the configuration. See app/util.py and the error classes there.\n\nExpected: a clear error naming the configuration file.";
    let v = repo.query(issue, &["--files", "--limit", "2"]);
    let files = v["files"].as_array().expect("files");
    assert_eq!(files.len(), 2, "--limit counts files: {v}");
    assert_eq!(files[0]["path"], "app/util.py", "{v}");
    assert_eq!(files[0]["mentioned"], true, "the issue names it: {v}");
    assert_eq!(files[0]["rank"], 1);
    assert!(files[0]["score"].as_f64().unwrap_or(0.0) > files[1]["score"].as_f64().unwrap_or(0.0), "{v}");
    let chunks = files[0]["chunks"].as_array().expect("chunks");
    assert!(!chunks.is_empty() && chunks.len() <= 3, "{v}");
    for c in chunks {
        assert!(c["start_line"].as_u64().unwrap_or(0) >= 1 && c["end_line"].as_u64() >= c["start_line"].as_u64(), "{c}");
    }
    // The results are the files' chunks, file by file, in the files' order.
    let order: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
    let mut seen: Vec<&str> = Vec::new();
    for r in v["results"].as_array().expect("results") {
        let p = r["path"].as_str().expect("path");
        if seen.last() != Some(&p) {
            assert!(!seen.contains(&p), "results grouped by file: {v}");
            seen.push(p);
        }
    }
    assert_eq!(seen, order, "{v}");
    // Without --files there is no files list.
    assert!(repo.query(issue, &[])["files"].is_null());
    // Text output: one line per file, its chunks indented.
    let text = repo.rag_ok(&["query", issue, "--files", "--limit", "1"]);
    assert!(text.starts_with("app/util.py  ["), "{text}");
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("    ")), "{text}");
}

/// A 3,000-word issue report (long prose, a traceback, a pasted log) is
/// answered like any query: the frame's function first.
#[test]
fn a_three_thousand_word_issue_is_answered() {
    let repo = repo();
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let mut issue = String::from("Server crashes on start with a bad port\n\n");
    let mut n = 0;
    while issue.split_whitespace().count() < 2800 {
        n += 1;
        issue.push_str(&format!(
            "Attempt {n}: we deployed build r{n} behind balancer lb-{n}; the health checks passed for {n} minutes, then the process restarted and operator team-{n} saw the dashboards climb. "
        ));
    }
    issue.push_str("\n\n```\nTraceback (most recent call last):\n  File \"app/server.py\", line 19, in start\n    port = parse_port(argv[1])\n  File \"app/util.py\", line 20, in parse_port\n    return int(text)\nValueError: invalid literal for int() with base 10: 'eighty'\n```\n");
    for i in 0..40 {
        issue.push_str(&format!("2026-11-23 12:{:02}:00 worker[{i}] restarting after exit status 1\n", i % 60));
    }
    let words = issue.split_whitespace().count();
    assert!(words >= 3000, "{words}");
    let started = std::time::Instant::now();
    let out = repo.rag_ok(&["query", &issue, "--json"]);
    let v: Value = serde_json::from_str(&out).expect("json");
    eprintln!("a {words}-word issue: answered in {:?} (took_ms {})", started.elapsed(), v["took_ms"]);
    assert_eq!(v["analysis"]["intent"], "document", "{}", v["analysis"]);
    let top: Vec<String> = symbols(&v).into_iter().take(2).collect();
    assert!(top.contains(&"parse_port".to_string()), "{top:?}");
}

/// A C function asked by name: its definition comes before its prototypes
/// (headers, a forward declaration in its own file), which match the name
/// exactly as well. Without the rule the order among them was a hash's.
#[test]
fn a_function_definition_comes_before_its_prototypes() {
    let repo = TestRepo::new();
    for header in ["include/net.h", "include/compat.h", "tools/include/net.h", "arch/x86/include/net.h"] {
        repo.write(header, "#pragma once\nint frob_packet(int len, const char *buf);\nint other_call(void);\n");
    }
    repo.write(
        "net/frob.c",
        "static int frob_packet(int len, const char *buf);\n\nint caller(void)\n{\n\treturn frob_packet(0, 0);\n}\n\nstatic int frob_packet(int len, const char *buf)\n{\n\treturn len + buf[0];\n}\n",
    );
    repo.commit("c");
    repo.rag_ok(&["index", "--no-semantic"]);
    let hits = repo.hits("frob_packet", &["--mode", "symbol"]);
    assert_eq!((hits[0].0.as_str(), hits[0].1, hits[0].2), ("net/frob.c", 8, 11), "{hits:?}");
    assert_eq!(hits.len(), 6, "the prototypes still follow: {hits:?}");
}

/// The stage's features of each hit it scored (`--explain`), by name: the
/// values of its explanation's contributions, every feature named in
/// `features.rs` (0 where not named), as `scripts/fit-ranking.py` reads them.
fn stage_features(repo: &TestRepo, text: &str) -> Vec<(String, BTreeMap<String, f64>)> {
    stage_features_of(repo, text, 20)
}

fn stage_features_of(repo: &TestRepo, text: &str, n: usize) -> Vec<(String, BTreeMap<String, f64>)> {
    let source = std::fs::read_to_string(crate::common::root().join("src/query/base/features.rs")).expect("features.rs");
    let names: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().split_once(" = \""))
        .filter_map(|(_, rest)| rest.split_once('"'))
        .filter(|(_, scope)| scope.starts_with(", Chunk;") || scope.starts_with(", File;"))
        .map(|(name, _)| name)
        .collect();
    assert!(names.len() > 30, "{names:?}");
    let v = repo.query(text, &["-n", &n.to_string(), "--explain"]);
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        // Past the stage's pool (40 and the named files), hits are not re-scored.
        .filter(|r| matches!(r["explain"]["ranked_by"].as_str(), Some("stage" | "structure")))
        .map(|r| {
            let given: BTreeMap<&str, f64> = r["explain"]["contributions"]
                .as_array()
                .expect("contributions")
                .iter()
                .filter_map(|c| Some((c["name"].as_str()?, c["value"].as_f64()?)))
                .collect();
            let named = names.iter().map(|n| (n.to_string(), given.get(n).copied().unwrap_or(0.0))).collect();
            (r["path"].as_str().unwrap_or_default().to_string(), named)
        })
        .collect()
}

/// The stage reads which of the question's words each candidate's file
/// holds in any of its chunks, from the index as it is now: a change the
/// work tree holds, and an indexed change whose older chunks are deleted.
#[test]
fn the_stage_reads_the_question_words_a_whole_file_holds() {
    let repo = TestRepo::new();
    let spread = "def feed_zebra():\n    return 'zebra'\n\n\ndef feed_quokka():\n    return 'quokka'\n\n\ndef feed_narwhal():\n    return 'narwhal'\n";
    repo.write("zoo/spread.py", spread);
    repo.write("zoo/one.py", "def zebra_stripes():\n    zebra = 'zebra zebra zebra'\n    return zebra\n");
    // Enough other chunks that the segment keeps spread.py's deleted ones
    // after the next commit (a segment a third deleted is merged).
    for i in 0..12 {
        repo.write(&format!("keeper/k{i}.py"), format!("def keep_{i}():\n    return {i}\n\n\ndef hold_{i}():\n    return {i}\n"));
    }
    repo.commit("c");
    repo.rag_ok(&["index", "--no-semantic"]);
    let question = "zebra quokka narwhal";
    let share = |path: &str, feature: &str, hits: &[(String, BTreeMap<String, f64>)]| -> Vec<f64> {
        hits.iter().filter(|(p, _)| p == path).map(|(_, f)| f[feature]).collect()
    };
    let hits = stage_features(&repo, question);
    let whole = share("zoo/spread.py", "file_words", &hits);
    assert!(!whole.is_empty() && whole.iter().all(|s| (s - 1.0).abs() < 1e-6), "spread.py holds every word: {hits:?}");
    let functions: Vec<f64> = hits.iter().filter(|(p, f)| p == "zoo/spread.py" && f["outline"] == 0.0).map(|(_, f)| f["chunk_words"]).collect();
    assert!(!functions.is_empty() && functions.iter().all(|s| (s - 1.0 / 3.0).abs() < 1e-6), "each function one word: {hits:?}");
    assert!(share("zoo/one.py", "file_words", &hits).iter().all(|s| (s - 1.0 / 3.0).abs() < 1e-6), "{hits:?}");

    // The work tree's version of one.py (not indexed) holds every word.
    repo.write("zoo/one.py", "def zebra_stripes():\n    return 'zebra quokka narwhal'\n");
    let hits = stage_features(&repo, question);
    let edited = share("zoo/one.py", "file_words", &hits);
    assert!(!edited.is_empty() && edited.iter().all(|s| (s - 1.0).abs() < 1e-6), "read from the work tree: {hits:?}");

    // Indexed: spread.py no longer speaks of narwhals; its older chunks are deleted, not read.
    repo.write("zoo/spread.py", spread.replace("narwhal", "walrus"));
    repo.commit("d");
    repo.rag_ok(&["index", "--no-semantic"]);
    let hits = stage_features(&repo, question);
    let after = share("zoo/spread.py", "file_words", &hits);
    assert!(!after.is_empty() && after.iter().all(|s| (s - 2.0 / 3.0).abs() < 1e-6), "{hits:?}");
    assert!(share("zoo/one.py", "file_words", &hits).iter().all(|s| (s - 1.0).abs() < 1e-6), "{hits:?}");
}

/// A short question that names a topic lifts the file most about it as a
/// whole (BM25 of the file's chunks together, rare words weighing more),
/// once: on the one candidate of each file the other features score best.
/// A long description of one behaviour, or a lone identifier, is not a topic.
#[test]
fn a_short_topical_question_marks_the_file_about_it_once() {
    let repo = TestRepo::new();
    repo.write("zoo/feeding.py", "def zebra_feed():\n    return 'zebra hay schedule'\n\n\ndef quokka_feed():\n    return 'quokka leaves schedule'\n\n\ndef feeding_schedule():\n    return [zebra_feed(), quokka_feed()]\n");
    repo.write("zoo/visitors.py", "def tour():\n    return 'see the zebra'\n");
    for i in 0..12 {
        repo.write(&format!("keeper/k{i}.py"), format!("def keep_{i}():\n    return 'schedule {i}'\n"));
    }
    repo.commit("c");
    repo.rag_ok(&["index", "--no-semantic"]);
    let topic =
        |path: &str, hits: &[(String, BTreeMap<String, f64>)]| -> Vec<f64> { hits.iter().filter(|(p, _)| p == path).map(|(_, f)| f["topic_file"]).collect() };
    let hits = stage_features(&repo, "zebra quokka feeding schedule");
    let feeding = topic("zoo/feeding.py", &hits);
    assert!(feeding.len() >= 2, "{hits:?}");
    assert_eq!(feeding.iter().filter(|v| **v != 0.0).count(), 1, "one candidate of the file carries it: {hits:?}");
    assert!(feeding.contains(&1.0), "the file most about the topic: {hits:?}");
    let visitors = topic("zoo/visitors.py", &hits);
    assert!(visitors.iter().any(|v| *v > 0.0 && *v < 0.5), "a file that mentions one word once: {hits:?}");
    for long in ["when is the zebra fed hay and the quokka fed leaves on the feeding schedule", "zebra_feed"] {
        let hits = stage_features(&repo, long);
        assert!(!hits.is_empty() && hits.iter().all(|(_, f)| f["topic_file"] == 0.0), "{long}: {hits:?}");
    }
}

/// A file named by the question's words joins the stage's candidates
/// though its chunks say nothing of them (`retrieve::paths`: `config` for
/// "configuration", which BM25's terms do not match), with its rank among
/// such files as a signal and a feature.
#[test]
fn a_file_the_question_names_joins_the_candidates() {
    let repo = TestRepo::new();
    repo.write("cli/config.py", "def load(path):\n    return dict(path=path)\n");
    for i in 0..45 {
        repo.write(&format!("cmd/c{i:02}.py"), format!("def run_{i}(settings):\n    \"\"\"The command reads its configuration; configuration shapes the command.\"\"\"\n    return settings.command_{i}\n"));
    }
    repo.commit("c");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let question = "where is the configuration of the command read";
    let bm25 = repo.query(question, &["--mode", "keyword", "-n", "100"]);
    assert!(!located(&bm25).iter().any(|r| r.0 == "cli/config.py"), "BM25 alone does not find it: {bm25}");
    let v = repo.query(question, &["-n", "60", "--explain"]);
    let named = v["results"].as_array().and_then(|rs| rs.iter().find(|r| r["path"] == "cli/config.py")).expect("named file among the results");
    assert_eq!((named["kind"].as_str(), named["signals"]["named"].as_u64()), (Some("file"), Some(1)), "{v}");
    let features = stage_features_of(&repo, question, 60);
    assert!(features.iter().any(|(p, f)| p == "cli/config.py" && f["named"] == 1.0 && f["name_parts"] > 0.0), "{features:?}");
    // The query's filters hold for it as for every list.
    for filter in [["--exclude", "cli/**"], ["--path", "cmd/**"], ["--kind", "function"]] {
        let v = repo.query(question, &["-n", "60", filter[0], filter[1]]);
        assert!(!located(&v).iter().any(|r| r.0 == "cli/config.py"), "{filter:?}: {v}");
    }
}

#[test]
fn a_name_defined_in_several_places_lists_the_one_the_project_builds_on_first() {
    let repo = TestRepo::new();
    // Each name in two places, the same code (so the same score); the
    // index's own tie order (a hash of where) puts `f6/views.py` first.
    let model = "class Model:\n    def save(self):\n        return 1\n";
    repo.write("aaa/models.py", model);
    repo.write("app/models.py", model);
    repo.write("app/orders.py", "from app.models import Model\n\n\ndef order():\n    return Model().save()\n");
    repo.write("app/users.py", "from app.models import Model\n\n\ndef user():\n    return Model()\n");
    let view = "class View:\n    pass\n";
    repo.write("f6/views.py", view);
    repo.write("zzz/views.py", view);
    repo.write("zzz/urls.py", "from zzz.views import View\n\n\ndef routes():\n    return [View()]\n");
    // Copies: a deeper file with the same folder and name.
    let pad = "def pad_left(text, n):\n    return text.rjust(n)\n";
    repo.write("tools/copy/strings/pad.py", pad);
    repo.write("strings/pad.py", pad);
    let trim = "def trim_all(text):\n    return text.strip()\n";
    repo.write("fmt/trim.py", trim);
    repo.write("vendor/z/fmt/trim.py", trim);
    repo.commit("two of each");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let first = |name: &str| repo.hits(name, &["--mode", "symbol", "-n", "1"]).into_iter().next().map(|h| h.0);
    // The file other files import and call into.
    assert_eq!(first("Model").as_deref(), Some("app/models.py"));
    assert_eq!(first("View").as_deref(), Some("zzz/views.py"));
    // The original before its copy.
    assert_eq!(first("pad_left").as_deref(), Some("strings/pad.py"));
    assert_eq!(first("trim_all").as_deref(), Some("fmt/trim.py"));
    // Every definition is still listed.
    assert_eq!(repo.hits("Model", &["--mode", "symbol"]).iter().filter(|h| h.3.as_deref() == Some("Model")).count(), 2);
}

//! `git rag impact` in each language with a call graph: a small real
//! repository per language (a helper, its caller and the caller's caller in
//! another file, a base type with an implementation, a test), then two
//! changes — the helper's body and the base type's method, then a rename
//! and a deleted file — and what each must reach.

use serde_json::Value;

use crate::common::TestRepo;

struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    /// (path, from, to): the helper's body and the base type's method.
    edits: &'static [(&'static str, &'static str, &'static str)],
    /// Own names of the definitions the edits change.
    changed: &'static [&'static str],
    caller: &'static str,
    callers_caller: &'static str,
    /// The implementation (or override) the base type's change reaches, and how.
    implementer: Option<(&'static str, &'static str)>,
    test: &'static str,
    /// (path, from, to) renaming the helper, and a file to delete whose definition `caller` no longer finds.
    rename: (&'static str, &'static str, &'static str),
    renamed: (&'static str, &'static str),
    deleted: &'static str,
}

fn own(name: &str) -> &str {
    name.rsplit(['.', ':', '#', '\\']).find(|s| !s.is_empty()).unwrap_or(name)
}

fn impacted(v: &Value) -> Vec<(String, String, u64)> {
    v["impacted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (own(i["symbol"].as_str().unwrap_or("-")).to_string(), i["relation"].as_str().unwrap_or("-").to_string(), i["depth"].as_u64().unwrap_or(0)))
        .collect()
}

/// Whether an impacted item's evidence line says what it proves: the name
/// it calls, extends, overrides or imports, or for a file's import the
/// file's stem or folder (letters compared without case, `_` or `-`).
fn evidence_proves(item: &Value) -> bool {
    let Some(text) = item["evidence"]["text"].as_str() else { return true };
    let plain = |s: &str| s.to_lowercase().replace(['_', '-'], "");
    let reaches = item["reaches"].as_str().unwrap_or_default();
    let said: Vec<String> = match reaches.rsplit_once('/').map(|(dir, file)| (dir, file.split('.').next().unwrap_or(file))) {
        Some((dir, stem)) if item["relation"] == "imports" => vec![plain(stem), plain(dir.rsplit('/').next().unwrap_or(dir))],
        _ if item["relation"] == "imports" && reaches.contains('.') && !reaches.contains("::") => vec![plain(reaches.split('.').next().unwrap_or(reaches))],
        _ => vec![plain(own(reaches))],
    };
    said.iter().any(|w| !w.is_empty() && plain(text).contains(w.as_str()))
}

fn edit(repo: &TestRepo, (path, from, to): (&str, &str, &str), case: &str) {
    let text = std::fs::read_to_string(repo.path().join(path)).unwrap();
    assert!(text.contains(from), "{case}: {path} has no {from:?}");
    repo.write(path, text.replacen(from, to, 1));
}

fn check(case: &Case) {
    let repo = TestRepo::new();
    for (path, text) in case.files {
        repo.write(path, text);
    }
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    let name = case.name;

    for e in case.edits {
        edit(&repo, *e, name);
    }
    let v = repo.impact(&[]);
    let changed: Vec<&str> = v["changed"].as_array().unwrap().iter().filter_map(|c| c["symbol"].as_str()).map(own).collect();
    for c in case.changed {
        assert!(changed.contains(c), "{name}: {c} not among the changed {changed:?}\n{v}");
    }
    let reached = impacted(&v);
    assert!(reached.contains(&(case.caller.into(), "calls".into(), 1)), "{name}: {} calls the helper\n{reached:?}", case.caller);
    assert!(reached.contains(&(case.callers_caller.into(), "calls".into(), 2)), "{name}: {} calls the caller\n{reached:?}", case.callers_caller);
    if let Some((who, how)) = case.implementer {
        assert!(reached.iter().any(|(s, r, d)| s == who && r == how && *d == 1), "{name}: {who} {how} the base\n{reached:?}");
    }
    let tests: Vec<&str> = v["tests"].as_array().unwrap().iter().filter_map(|t| t["path"].as_str()).collect();
    assert_eq!(tests.first().copied(), Some(case.test), "{name}: the test first\n{}", v["tests"]);
    for i in v["impacted"].as_array().unwrap() {
        assert!(evidence_proves(i), "{name}: the evidence line does not say what it proves\n{i}");
    }

    repo.git(&["checkout", "-q", "--", "."]);
    edit(&repo, case.rename, name);
    repo.remove(case.deleted);
    let v = repo.impact(&[]);
    let renamed = v["changed"].as_array().unwrap().iter().find(|c| c["change"] == "renamed");
    let pair = renamed.map(|c| (own(c["symbol"].as_str().unwrap_or("")), own(c["previous"].as_str().unwrap_or(""))));
    assert_eq!(pair, Some(case.renamed), "{name}: the rename\n{v}");
    assert!(
        v["changed"].as_array().unwrap().iter().any(|c| c["path"] == case.deleted && c["symbol"].is_null() && c["change"] == "deleted"),
        "{name}: the deleted file\n{v}"
    );
    assert!(impacted(&v).contains(&(case.caller.into(), "calls".into(), 1)), "{name}: the renamed helper's caller\n{v}");
    repo.commit("rename and delete");
    assert_eq!(repo.impact(&["HEAD~1..HEAD"]), v, "{name}: the range equals the work-tree form");
}

const PYTHON: Case = Case {
    name: "python",
    files: &[
        ("app/shapes.py", "class Shape:\n    def area(self):\n        return 0\n\n\nclass SquareShape(Shape):\n    def area(self):\n        return 4\n\n\ndef scale_value(x):\n    return x * 2\n"),
        ("app/service.py", "from app.shapes import scale_value\n\n\ndef serve_request(v):\n    return scale_value(v)\n\n\ndef top_level_entry(v):\n    return serve_request(v) + 1\n"),
        ("app/extra.py", "def unused_extra():\n    return 0\n"),
        ("tests/test_shapes.py", "from app.shapes import scale_value\n\n\ndef test_scale():\n    assert scale_value(2) == 4\n"),
    ],
    edits: &[("app/shapes.py", "return x * 2", "return x * 3"), ("app/shapes.py", "        return 0", "        return -1")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "tests/test_shapes.py",
    rename: ("app/shapes.py", "def scale_value(x):", "def scale_by_two(x):"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "app/extra.py",
};

const JAVASCRIPT: Case = Case {
    name: "javascript",
    files: &[
        ("src/shapes.js", "class Shape {\n  area() {\n    return 0;\n  }\n}\n\nclass SquareShape extends Shape {\n  area() {\n    return 4;\n  }\n}\n\nfunction scaleValue(x) {\n  return x * 2;\n}\n\nmodule.exports = { Shape, SquareShape, scaleValue };\n"),
        ("src/service.js", "const { scaleValue } = require('./shapes');\n\nfunction serveRequest(v) {\n  return scaleValue(v);\n}\n\nfunction topLevelEntry(v) {\n  return serveRequest(v) + 1;\n}\n\nmodule.exports = { serveRequest, topLevelEntry };\n"),
        ("src/extra.js", "function unusedExtra() {\n  return 0;\n}\n"),
        ("test/shapes.test.js", "const { scaleValue } = require('../src/shapes');\n\ntest('scales', () => {\n  expect(scaleValue(2)).toBe(4);\n});\n"),
    ],
    edits: &[("src/shapes.js", "return x * 2;", "return x * 3;"), ("src/shapes.js", "    return 0;", "    return -1;")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "overrides")),
    test: "test/shapes.test.js",
    rename: ("src/shapes.js", "function scaleValue(x) {", "function scaleByTwo(x) {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/extra.js",
};

const TYPESCRIPT: Case = Case {
    name: "typescript",
    files: &[
        ("src/shapes.ts", "export interface Shape {\n  area(): number;\n}\n\nexport class SquareShape implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n\nexport function scaleValue(x: number): number {\n  return x * 2;\n}\n"),
        ("src/service.ts", "import { scaleValue } from './shapes';\n\nexport function serveRequest(v: number): number {\n  return scaleValue(v);\n}\n\nexport function topLevelEntry(v: number): number {\n  return serveRequest(v) + 1;\n}\n"),
        ("src/extra.ts", "export function unusedExtra(): number {\n  return 0;\n}\n"),
        ("src/shapes.test.ts", "import { scaleValue } from './shapes';\n\ntest('scales', () => {\n  expect(scaleValue(2)).toBe(4);\n});\n"),
    ],
    edits: &[("src/shapes.ts", "return x * 2;", "return x * 3;"), ("src/shapes.ts", "  area(): number;", "  area(k: number): number;")],
    // An interface's members are not definitions of their own: the interface changed, its implementation is reached.
    changed: &["scaleValue", "Shape"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("SquareShape", "implements")),
    test: "src/shapes.test.ts",
    rename: ("src/shapes.ts", "export function scaleValue(x: number): number {", "export function scaleByTwo(x: number): number {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/extra.ts",
};

const GO: Case = Case {
    name: "go",
    files: &[
        ("go.mod", "module example.com/app\n\ngo 1.21\n"),
        ("mathx/scale.go", "package mathx\n\ntype Shape interface {\n\tArea() int\n}\n\nfunc ScaleValue(x int) int {\n\treturn x * 2\n}\n"),
        // No type names the interfaces it meets: SquareShape meets Shape by its method set.
        ("mathx/square.go", "package mathx\n\ntype SquareShape struct{}\n\nfunc (s SquareShape) Area() int {\n\treturn 4\n}\n"),
        ("service/service.go", "package service\n\nimport \"example.com/app/mathx\"\n\nfunc ServeRequest(v int) int {\n\treturn mathx.ScaleValue(v)\n}\n\nfunc TopLevelEntry(v int) int {\n\treturn ServeRequest(v) + 1\n}\n"),
        ("mathx/extra.go", "package mathx\n\nfunc UnusedExtra() int {\n\treturn 0\n}\n"),
        ("mathx/scale_test.go", "package mathx\n\nimport \"testing\"\n\nfunc TestScale(t *testing.T) {\n\tif ScaleValue(2) != 4 {\n\t\tt.Fatal(\"scale\")\n\t}\n}\n"),
    ],
    edits: &[("mathx/scale.go", "return x * 2", "return x * 3"), ("mathx/scale.go", "\tArea() int", "\tArea(k int) int")],
    changed: &["ScaleValue", "Area"],
    caller: "ServeRequest",
    callers_caller: "TopLevelEntry",
    implementer: Some(("Area", "implements")),
    test: "mathx/scale_test.go",
    rename: ("mathx/scale.go", "func ScaleValue(x int) int {", "func ScaleByTwo(x int) int {"),
    renamed: ("ScaleByTwo", "ScaleValue"),
    deleted: "mathx/extra.go",
};

const RUST: Case = Case {
    name: "rust",
    files: &[
        ("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n"),
        ("src/lib.rs", "pub mod extra;\npub mod service;\npub mod shape;\n"),
        ("src/shape.rs", "pub trait Shape {\n    fn area(&self) -> i32;\n}\n\npub struct SquareShape;\n\nimpl Shape for SquareShape {\n    fn area(&self) -> i32 {\n        4\n    }\n}\n\npub fn scale_value(x: i32) -> i32 {\n    x * 2\n}\n"),
        ("src/service.rs", "use crate::shape::scale_value;\n\npub fn serve_request(v: i32) -> i32 {\n    scale_value(v)\n}\n\npub fn top_level_entry(v: i32) -> i32 {\n    serve_request(v) + 1\n}\n"),
        ("src/extra.rs", "pub fn unused_extra() -> i32 {\n    0\n}\n"),
        ("tests/shape.rs", "use app::shape::scale_value;\n\n#[test]\nfn scales() {\n    assert_eq!(scale_value(2), 4);\n}\n"),
    ],
    edits: &[("src/shape.rs", "    x * 2", "    x * 3"), ("src/shape.rs", "    fn area(&self) -> i32;", "    fn area(&self, k: i32) -> i32;")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "implements")),
    test: "tests/shape.rs",
    rename: ("src/shape.rs", "pub fn scale_value(x: i32) -> i32 {", "pub fn scale_by_two(x: i32) -> i32 {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.rs",
};

const JAVA: Case = Case {
    name: "java",
    files: &[
        ("src/main/java/app/Shape.java", "package app;\n\npublic interface Shape {\n    double area();\n}\n"),
        ("src/main/java/app/SquareShape.java", "package app;\n\npublic class SquareShape implements Shape {\n    public double area() {\n        return 4.0;\n    }\n}\n"),
        ("src/main/java/app/Scaler.java", "package app;\n\npublic class Scaler {\n    public static int scaleValue(int x) {\n        return x * 2;\n    }\n}\n"),
        ("src/main/java/app/Service.java", "package app;\n\npublic class Service {\n    public static int serveRequest(int v) {\n        return Scaler.scaleValue(v);\n    }\n\n    public static int topLevelEntry(int v) {\n        return serveRequest(v) + 1;\n    }\n}\n"),
        ("src/main/java/app/Extra.java", "package app;\n\npublic class Extra {\n    public static int unusedExtra() {\n        return 0;\n    }\n}\n"),
        ("src/test/java/app/ScalerTest.java", "package app;\n\npublic class ScalerTest {\n    public void testScale() {\n        assert Scaler.scaleValue(2) == 4;\n    }\n}\n"),
    ],
    edits: &[("src/main/java/app/Scaler.java", "return x * 2;", "return x * 3;"), ("src/main/java/app/Shape.java", "    double area();", "    double area(int k);")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "src/test/java/app/ScalerTest.java",
    rename: ("src/main/java/app/Scaler.java", "public static int scaleValue(int x) {", "public static int scaleByTwo(int x) {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/main/java/app/Extra.java",
};

const RUBY: Case = Case {
    name: "ruby",
    files: &[
        (
            "lib/shapes.rb",
            "class Shape\n  def area\n    0\n  end\nend\n\nclass SquareShape < Shape\n  def area\n    4\n  end\nend\n\ndef scale_value(x)\n  x * 2\nend\n",
        ),
        ("lib/service.rb", "require_relative 'shapes'\n\ndef serve_request(v)\n  scale_value(v)\nend\n\ndef top_level_entry(v)\n  serve_request(v) + 1\nend\n"),
        ("lib/extra.rb", "def unused_extra\n  0\nend\n"),
        ("spec/shapes_spec.rb", "require_relative '../lib/shapes'\n\ndescribe 'scale' do\n  it 'scales' do\n    expect(scale_value(2)).to eq(4)\n  end\nend\n"),
    ],
    edits: &[("lib/shapes.rb", "  x * 2", "  x * 3"), ("lib/shapes.rb", "    0\n", "    -1\n")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "spec/shapes_spec.rb",
    rename: ("lib/shapes.rb", "def scale_value(x)", "def scale_by_two(x)"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "lib/extra.rb",
};

const C: Case = Case {
    name: "c",
    files: &[
        ("src/scale.c", "int scale_value(int x) {\n    return x * 2;\n}\n"),
        ("src/service.c", "int serve_request(int v) {\n    return scale_value(v);\n}\n\nint top_level_entry(int v) {\n    return serve_request(v) + 1;\n}\n"),
        ("src/extra.c", "int unused_extra(void) {\n    return 0;\n}\n"),
        ("tests/test_scale.c", "int test_scale(void) {\n    return scale_value(2) == 4;\n}\n"),
    ],
    edits: &[("src/scale.c", "return x * 2;", "return x * 3;")],
    changed: &["scale_value"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: None,
    test: "tests/test_scale.c",
    rename: ("src/scale.c", "int scale_value(int x) {", "int scale_by_two(int x) {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.c",
};

const CPP: Case = Case {
    name: "cpp",
    files: &[
        ("src/shape.hpp", "class Shape {\npublic:\n    virtual int area() {\n        return 0;\n    }\n};\n\nclass SquareShape : public Shape {\npublic:\n    int area() override {\n        return 4;\n    }\n};\n\nint scale_value(int x) {\n    return x * 2;\n}\n"),
        ("src/service.cpp", "#include \"shape.hpp\"\n\nint serve_request(int v) {\n    return scale_value(v);\n}\n\nint top_level_entry(int v) {\n    return serve_request(v) + 1;\n}\n"),
        ("src/extra.cpp", "int unused_extra() {\n    return 0;\n}\n"),
        ("tests/shape_test.cpp", "#include \"../src/shape.hpp\"\n\nint test_scale() {\n    return scale_value(2) == 4;\n}\n"),
    ],
    edits: &[("src/shape.hpp", "return x * 2;", "return x * 3;"), ("src/shape.hpp", "        return 0;", "        return -1;")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "tests/shape_test.cpp",
    rename: ("src/shape.hpp", "int scale_value(int x) {", "int scale_by_two(int x) {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.cpp",
};

const CSHARP: Case = Case {
    name: "csharp",
    files: &[
        ("src/Shapes.cs", "namespace App {\n    public interface IShape {\n        int Area();\n    }\n\n    public class SquareShape : IShape {\n        public int Area() {\n            return 4;\n        }\n    }\n\n    public static class Scaler {\n        public static int ScaleValue(int x) {\n            return x * 2;\n        }\n    }\n}\n"),
        ("src/Service.cs", "namespace App {\n    public static class Service {\n        public static int ServeRequest(int v) {\n            return Scaler.ScaleValue(v);\n        }\n\n        public static int TopLevelEntry(int v) {\n            return ServeRequest(v) + 1;\n        }\n    }\n}\n"),
        ("src/Extra.cs", "namespace App {\n    public static class Extra {\n        public static int UnusedExtra() {\n            return 0;\n        }\n    }\n}\n"),
        ("tests/ScalerTests.cs", "namespace App.Tests {\n    public class ScalerTests {\n        public void Scales() {\n            var y = Scaler.ScaleValue(2);\n        }\n    }\n}\n"),
    ],
    edits: &[("src/Shapes.cs", "return x * 2;", "return x * 3;"), ("src/Shapes.cs", "        int Area();", "        int Area(int k);")],
    changed: &["ScaleValue", "Area"],
    caller: "ServeRequest",
    callers_caller: "TopLevelEntry",
    implementer: Some(("Area", "implements")),
    test: "tests/ScalerTests.cs",
    rename: ("src/Shapes.cs", "public static int ScaleValue(int x) {", "public static int ScaleByTwo(int x) {"),
    renamed: ("ScaleByTwo", "ScaleValue"),
    deleted: "src/Extra.cs",
};

const KOTLIN: Case = Case {
    name: "kotlin",
    files: &[
        ("src/main/kotlin/app/Shapes.kt", "package app\n\ninterface Shape {\n    fun area(): Int\n}\n\nclass SquareShape : Shape {\n    override fun area(): Int {\n        return 4\n    }\n}\n\nfun scaleValue(x: Int): Int {\n    return x * 2\n}\n"),
        ("src/main/kotlin/app/Service.kt", "package app\n\nfun serveRequest(v: Int): Int {\n    return scaleValue(v)\n}\n\nfun topLevelEntry(v: Int): Int {\n    return serveRequest(v) + 1\n}\n"),
        ("src/main/kotlin/app/Extra.kt", "package app\n\nfun unusedExtra(): Int {\n    return 0\n}\n"),
        ("src/test/kotlin/app/ShapesTest.kt", "package app\n\nclass ShapesTest {\n    fun scales() {\n        check(scaleValue(2) == 4)\n    }\n}\n"),
    ],
    edits: &[("src/main/kotlin/app/Shapes.kt", "return x * 2", "return x * 3"), ("src/main/kotlin/app/Shapes.kt", "    fun area(): Int\n}", "    fun area(k: Int): Int\n}")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "src/test/kotlin/app/ShapesTest.kt",
    rename: ("src/main/kotlin/app/Shapes.kt", "fun scaleValue(x: Int): Int {", "fun scaleByTwo(x: Int): Int {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/main/kotlin/app/Extra.kt",
};

const PHP: Case = Case {
    name: "php",
    files: &[
        ("src/Shapes.php", "<?php\n\ninterface Shape {\n    public function area();\n}\n\nclass SquareShape implements Shape {\n    public function area() {\n        return 4;\n    }\n}\n\nfunction scale_value($x) {\n    return $x * 2;\n}\n"),
        ("src/Service.php", "<?php\n\nrequire_once 'Shapes.php';\n\nfunction serve_request($v) {\n    return scale_value($v);\n}\n\nfunction top_level_entry($v) {\n    return serve_request($v) + 1;\n}\n"),
        ("src/Extra.php", "<?php\n\nfunction unused_extra() {\n    return 0;\n}\n"),
        ("tests/ShapesTest.php", "<?php\n\nclass ShapesTest {\n    public function testScale() {\n        return scale_value(2) == 4;\n    }\n}\n"),
    ],
    edits: &[("src/Shapes.php", "return $x * 2;", "return $x * 3;"), ("src/Shapes.php", "    public function area();", "    public function area($k);")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "implements")),
    test: "tests/ShapesTest.php",
    rename: ("src/Shapes.php", "function scale_value($x) {", "function scale_by_two($x) {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/Extra.php",
};

const SCALA: Case = Case {
    name: "scala",
    files: &[
        ("src/main/scala/app/Shapes.scala", "package app\n\ntrait Shape {\n  def area(): Int\n}\n\nclass SquareShape extends Shape {\n  def area(): Int = 4\n}\n\nobject Scaler {\n  def scaleValue(x: Int): Int = {\n    x * 2\n  }\n}\n"),
        ("src/main/scala/app/Service.scala", "package app\n\nobject Service {\n  def serveRequest(v: Int): Int = {\n    Scaler.scaleValue(v)\n  }\n\n  def topLevelEntry(v: Int): Int = {\n    serveRequest(v) + 1\n  }\n}\n"),
        ("src/main/scala/app/Extra.scala", "package app\n\nobject Extra {\n  def unusedExtra(): Int = 0\n}\n"),
        ("src/test/scala/app/ShapesSpec.scala", "package app\n\nclass ShapesSpec {\n  def scales(): Boolean = Scaler.scaleValue(2) == 4\n}\n"),
    ],
    edits: &[("src/main/scala/app/Shapes.scala", "    x * 2", "    x * 3"), ("src/main/scala/app/Shapes.scala", "  def area(): Int\n}", "  def area(k: Int): Int\n}")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "src/test/scala/app/ShapesSpec.scala",
    rename: ("src/main/scala/app/Shapes.scala", "def scaleValue(x: Int): Int = {", "def scaleByTwo(x: Int): Int = {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/main/scala/app/Extra.scala",
};

const SWIFT: Case = Case {
    name: "swift",
    files: &[
        ("Sources/App/Shapes.swift", "protocol Shape {\n    func area() -> Int\n}\n\nstruct SquareShape: Shape {\n    func area() -> Int {\n        return 4\n    }\n}\n\nfunc scaleValue(_ x: Int) -> Int {\n    return x * 2\n}\n"),
        ("Sources/App/Service.swift", "func serveRequest(_ v: Int) -> Int {\n    return scaleValue(v)\n}\n\nfunc topLevelEntry(_ v: Int) -> Int {\n    return serveRequest(v) + 1\n}\n"),
        ("Sources/App/Extra.swift", "func unusedExtra() -> Int {\n    return 0\n}\n"),
        ("Tests/AppTests/ShapesTests.swift", "class ShapesTests {\n    func testScale() {\n        assert(scaleValue(2) == 4)\n    }\n}\n"),
    ],
    edits: &[("Sources/App/Shapes.swift", "return x * 2", "return x * 3"), ("Sources/App/Shapes.swift", "    func area() -> Int\n}", "    func area(k: Int) -> Int\n}")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "Tests/AppTests/ShapesTests.swift",
    rename: ("Sources/App/Shapes.swift", "func scaleValue(_ x: Int) -> Int {", "func scaleByTwo(_ x: Int) -> Int {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "Sources/App/Extra.swift",
};

const LUA: Case = Case {
    name: "lua",
    files: &[
        ("src/scaler.lua", "function scale_value(x)\n  return x * 2\nend\n"),
        ("src/service.lua", "function serve_request(v)\n  return scale_value(v)\nend\n\nfunction top_level_entry(v)\n  return serve_request(v) + 1\nend\n"),
        ("src/extra.lua", "function unused_extra()\n  return 0\nend\n"),
        ("spec/scaler_spec.lua", "describe('scaler', function()\n  it('scales', function()\n    assert(scale_value(2) == 4)\n  end)\nend)\n"),
    ],
    edits: &[("src/scaler.lua", "return x * 2", "return x * 3")],
    changed: &["scale_value"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: None,
    test: "spec/scaler_spec.lua",
    rename: ("src/scaler.lua", "function scale_value(x)", "function scale_by_two(x)"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.lua",
};

const ELIXIR: Case = Case {
    name: "elixir",
    files: &[
        ("lib/scaler.ex", "defmodule Scaler do\n  def scale_value(x) do\n    x * 2\n  end\nend\n\ndefprotocol Shape do\n  def area(s)\nend\n\ndefmodule SquareShape do\n  defstruct []\nend\n\ndefimpl Shape, for: SquareShape do\n  def area(_s), do: 4\nend\n"),
        ("lib/service.ex", "defmodule Service do\n  def serve_request(v) do\n    Scaler.scale_value(v)\n  end\n\n  def top_level_entry(v) do\n    serve_request(v) + 1\n  end\nend\n"),
        ("lib/extra.ex", "defmodule Extra do\n  def unused_extra do\n    0\n  end\nend\n"),
        ("test/scaler_test.exs", "defmodule ScalerTest do\n  use ExUnit.Case\n\n  test \"scales\" do\n    assert Scaler.scale_value(2) == 4\n  end\nend\n"),
    ],
    edits: &[("lib/scaler.ex", "    x * 2", "    x * 3"), ("lib/scaler.ex", "  def area(s)\n", "  def area(s, k)\n")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "implements")),
    test: "test/scaler_test.exs",
    rename: ("lib/scaler.ex", "def scale_value(x) do", "def scale_by_two(x) do"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "lib/extra.ex",
};

const BASH: Case = Case {
    name: "bash",
    files: &[
        ("lib/scale.sh", "scale_value() {\n  echo $(( $1 * 2 ))\n}\n"),
        ("lib/service.sh", "serve_request() {\n  scale_value \"$1\"\n}\n\ntop_level_entry() {\n  serve_request \"$1\"\n}\n"),
        ("lib/extra.sh", "unused_extra() {\n  echo 0\n}\n"),
        ("test/test_scale.sh", "test_scale() {\n  scale_value 2\n}\n"),
    ],
    edits: &[("lib/scale.sh", "$1 * 2", "$1 * 3")],
    changed: &["scale_value"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: None,
    test: "test/test_scale.sh",
    rename: ("lib/scale.sh", "scale_value() {", "scale_by_two() {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "lib/extra.sh",
};

const ZIG: Case = Case {
    name: "zig",
    files: &[
        ("src/scale.zig", "pub fn scaleValue(x: i32) i32 {\n    return x * 2;\n}\n"),
        ("src/service.zig", "const scale = @import(\"scale.zig\");\n\npub fn serveRequest(v: i32) i32 {\n    return scale.scaleValue(v);\n}\n\npub fn topLevelEntry(v: i32) i32 {\n    return serveRequest(v) + 1;\n}\n"),
        ("src/extra.zig", "pub fn unusedExtra() i32 {\n    return 0;\n}\n"),
        ("tests/scale_test.zig", "const scale = @import(\"../src/scale.zig\");\n\nfn checkScale() void {\n    _ = scale.scaleValue(2);\n}\n"),
    ],
    edits: &[("src/scale.zig", "return x * 2;", "return x * 3;")],
    changed: &["scaleValue"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: None,
    test: "tests/scale_test.zig",
    rename: ("src/scale.zig", "pub fn scaleValue(x: i32) i32 {", "pub fn scaleByTwo(x: i32) i32 {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/extra.zig",
};

const DART: Case = Case {
    name: "dart",
    files: &[
        ("lib/shapes.dart", "abstract class Shape {\n  int area() {\n    return 0;\n  }\n}\n\nclass SquareShape extends Shape {\n  int area() {\n    return 4;\n  }\n}\n\nint scaleValue(int x) {\n  return x * 2;\n}\n"),
        ("lib/service.dart", "import 'shapes.dart';\n\nint serveRequest(int v) {\n  return scaleValue(v);\n}\n\nint topLevelEntry(int v) {\n  return serveRequest(v) + 1;\n}\n"),
        ("lib/extra.dart", "int unusedExtra() {\n  return 0;\n}\n"),
        ("test/shapes_test.dart", "import '../lib/shapes.dart';\n\nvoid checkScale() {\n  assert(scaleValue(2) == 4);\n}\n"),
    ],
    edits: &[("lib/shapes.dart", "return x * 2;", "return x * 3;"), ("lib/shapes.dart", "    return 0;", "    return -1;")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "overrides")),
    test: "test/shapes_test.dart",
    rename: ("lib/shapes.dart", "int scaleValue(int x) {", "int scaleByTwo(int x) {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "lib/extra.dart",
};

const HASKELL: Case = Case {
    name: "haskell",
    files: &[
        ("src/Shapes.hs", "module Shapes where\n\nclass Shape a where\n  area :: a -> Int\n\ndata SquareShape = SquareShape\n\ninstance Shape SquareShape where\n  area _ = 4\n\nscaleValue :: Int -> Int\nscaleValue x = x * 2\n"),
        ("src/Service.hs", "module Service where\n\nimport Shapes\n\nserveRequest :: Int -> Int\nserveRequest v = scaleValue v\n\ntopLevelEntry :: Int -> Int\ntopLevelEntry v = serveRequest v + 1\n"),
        ("src/Extra.hs", "module Extra where\n\nunusedExtra :: Int\nunusedExtra = 0\n"),
        ("test/ShapesSpec.hs", "module ShapesSpec where\n\nimport Shapes\n\nspec :: Bool\nspec = scaleValue 2 == 4\n"),
    ],
    edits: &[("src/Shapes.hs", "scaleValue x = x * 2", "scaleValue x = x * 3"), ("src/Shapes.hs", "  area :: a -> Int", "  area :: a -> Int -> Int")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "test/ShapesSpec.hs",
    rename: ("src/Shapes.hs", "scaleValue :: Int -> Int\nscaleValue x = x * 2", "scaleByTwo :: Int -> Int\nscaleByTwo x = x * 2"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/Extra.hs",
};

const OCAML: Case = Case {
    name: "ocaml",
    files: &[
        ("lib/scaler.ml", "class shape = object\n  method area = 0\nend\n\nclass square_shape = object\n  inherit shape\n  method area = 4\nend\n\nlet scale_value x =\n  x * 2\n"),
        ("lib/service.ml", "let serve_request v =\n  Scaler.scale_value v\n\nlet top_level_entry v =\n  serve_request v + 1\n"),
        ("lib/extra.ml", "let unused_extra () =\n  0\n"),
        ("test/test_scaler.ml", "let test_scale () =\n  assert (Scaler.scale_value 2 = 4)\n"),
    ],
    edits: &[("lib/scaler.ml", "  x * 2", "  x * 3"), ("lib/scaler.ml", "method area = 0", "method area = -1")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "test/test_scaler.ml",
    rename: ("lib/scaler.ml", "let scale_value x =", "let scale_by_two x ="),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "lib/extra.ml",
};

const ERLANG: Case = Case {
    name: "erlang",
    files: &[
        ("src/scaler.erl", "-module(scaler).\n-export([scale_value/1]).\n\nscale_value(X) ->\n    X * 2.\n"),
        ("src/shape.erl", "-module(shape).\n\n-callback area(term()) -> integer().\n"),
        ("src/square_shape.erl", "-module(square_shape).\n-behaviour(shape).\n-export([area/1]).\n\narea(_) ->\n    4.\n"),
        ("src/service.erl", "-module(service).\n-export([serve_request/1, top_level_entry/1]).\n\nserve_request(V) ->\n    scaler:scale_value(V).\n\ntop_level_entry(V) ->\n    serve_request(V) + 1.\n"),
        ("src/extra.erl", "-module(extra).\n-export([unused_extra/0]).\n\nunused_extra() ->\n    0.\n"),
        ("test/scaler_tests.erl", "-module(scaler_tests).\n-include_lib(\"eunit/include/eunit.hrl\").\n\nscale_test() ->\n    ?assertEqual(4, scaler:scale_value(2)).\n"),
    ],
    edits: &[("src/scaler.erl", "X * 2.", "X * 3."), ("src/shape.erl", "area(term())", "area(term(), integer())")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "implements")),
    test: "test/scaler_tests.erl",
    rename: ("src/scaler.erl", "-export([scale_value/1]).\n\nscale_value(X) ->", "-export([scale_by_two/1]).\n\nscale_by_two(X) ->"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.erl",
};

const JULIA: Case = Case {
    name: "julia",
    files: &[
        (
            "src/shapes.jl",
            "abstract type Shape end\n\nstruct SquareShape <: Shape end\n\narea(s::SquareShape) = 4\n\nfunction scale_value(x)\n    return x * 2\nend\n",
        ),
        ("src/service.jl", "function serve_request(v)\n    return scale_value(v)\nend\n\nfunction top_level_entry(v)\n    return serve_request(v) + 1\nend\n"),
        ("src/extra.jl", "function unused_extra()\n    return 0\nend\n"),
        ("test/test_shapes.jl", "using Test\n\n@testset \"scale\" begin\n    @test scale_value(2) == 4\nend\n"),
    ],
    edits: &[("src/shapes.jl", "return x * 2", "return x * 3"), ("src/shapes.jl", "abstract type Shape end", "abstract type Shape <: Number end")],
    changed: &["scale_value", "Shape"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("SquareShape", "implements")),
    test: "test/test_shapes.jl",
    rename: ("src/shapes.jl", "function scale_value(x)", "function scale_by_two(x)"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "src/extra.jl",
};

const R: Case = Case {
    name: "r",
    files: &[
        ("R/scaler.R", "scale_value <- function(x) {\n  x * 2\n}\n\nShape <- R6Class(\"Shape\", public = list(\n  area = function() {\n    0\n  }\n))\n\nSquareShape <- R6Class(\"SquareShape\", inherit = Shape, public = list(\n  area = function() {\n    4\n  }\n))\n"),
        ("R/service.R", "serve_request <- function(v) {\n  scale_value(v)\n}\n\ntop_level_entry <- function(v) {\n  serve_request(v) + 1\n}\n"),
        ("R/extra.R", "unused_extra <- function() {\n  0\n}\n"),
        ("tests/testthat/test-scaler.R", "test_that(\"scales\", {\n  expect_equal(scale_value(2), 4)\n})\n"),
    ],
    edits: &[("R/scaler.R", "  x * 2", "  x * 3"), ("R/scaler.R", "    0\n", "    -1\n")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "tests/testthat/test-scaler.R",
    rename: ("R/scaler.R", "scale_value <- function(x) {", "scale_by_two <- function(x) {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "R/extra.R",
};

const OBJC: Case = Case {
    name: "objc",
    files: &[
        ("src/Shapes.m", "@protocol Shape\n- (int)area;\n@end\n\n@interface SquareShape : NSObject <Shape>\n@end\n\n@implementation SquareShape\n- (int)area {\n    return 4;\n}\n@end\n\nint scaleValue(int x) {\n    return x * 2;\n}\n"),
        ("src/Service.m", "#import \"Shapes.m\"\n\nint serveRequest(int v) {\n    return scaleValue(v);\n}\n\nint topLevelEntry(int v) {\n    return serveRequest(v) + 1;\n}\n"),
        ("src/Extra.m", "int unusedExtra(void) {\n    return 0;\n}\n"),
        ("Tests/ShapesTests.m", "@interface ShapesTests : NSObject\n@end\n\n@implementation ShapesTests\n- (void)testScale {\n    scaleValue(2);\n}\n@end\n"),
    ],
    edits: &[("src/Shapes.m", "return x * 2;", "return x * 3;"), ("src/Shapes.m", "- (int)area;", "- (int)area:(int)k;")],
    changed: &["scaleValue", "area"],
    caller: "serveRequest",
    callers_caller: "topLevelEntry",
    implementer: Some(("area", "implements")),
    test: "Tests/ShapesTests.m",
    rename: ("src/Shapes.m", "int scaleValue(int x) {", "int scaleByTwo(int x) {"),
    renamed: ("scaleByTwo", "scaleValue"),
    deleted: "src/Extra.m",
};

const PERL: Case = Case {
    name: "perl",
    files: &[
        (
            "lib/Shapes.pm",
            "package Shapes;\n\nsub scale_value {\n    my ($x) = @_;\n    return $x * 2;\n}\n\npackage Shape;\n\nsub area {\n    my ($self) = @_;\n    return 0;\n}\n\npackage SquareShape;\nuse parent -norequire, 'Shape';\n\nsub area {\n    my ($self) = @_;\n    return 4;\n}\n\n1;\n",
        ),
        ("lib/Service.pm", "package Service;\n\nuse Shapes;\n\nsub serve_request {\n    my ($v) = @_;\n    return Shapes::scale_value($v);\n}\n\nsub top_level_entry {\n    my ($v) = @_;\n    return serve_request($v) + 1;\n}\n\n1;\n"),
        ("lib/Extra.pm", "package Extra;\n\nsub unused_extra {\n    return 0;\n}\n\n1;\n"),
        ("t/shapes.t", "use Test::More;\nuse Shapes;\n\nis(Shapes::scale_value(2), 4);\n\ndone_testing();\n"),
    ],
    edits: &[("lib/Shapes.pm", "return $x * 2;", "return $x * 3;"), ("lib/Shapes.pm", "return 0;", "return 1;")],
    changed: &["scale_value", "area"],
    caller: "serve_request",
    callers_caller: "top_level_entry",
    implementer: Some(("area", "overrides")),
    test: "t/shapes.t",
    rename: ("lib/Shapes.pm", "sub scale_value {", "sub scale_by_two {"),
    renamed: ("scale_by_two", "scale_value"),
    deleted: "lib/Extra.pm",
};

const CLOJURE: Case = Case {
    name: "clojure",
    files: &[
        ("src/app/scaler.clj", "(ns app.scaler)\n\n(defprotocol Shape\n  (area [s]))\n\n(defrecord SquareShape []\n  Shape\n  (area [s] 4))\n\n(defn scale-value [x]\n  (* x 2))\n"),
        ("src/app/service.clj", "(ns app.service\n  (:require [app.scaler :as scaler]))\n\n(defn serve-request [v]\n  (scaler/scale-value v))\n\n(defn top-level-entry [v]\n  (+ (serve-request v) 1))\n"),
        ("src/app/extra.clj", "(ns app.extra)\n\n(defn unused-extra []\n  0)\n"),
        ("test/app/scaler_test.clj", "(ns app.scaler-test\n  (:require [clojure.test :refer :all]\n            [app.scaler :as scaler]))\n\n(deftest scales\n  (is (= 4 (scaler/scale-value 2))))\n"),
    ],
    edits: &[("src/app/scaler.clj", "(* x 2)", "(* x 3)"), ("src/app/scaler.clj", "  (area [s]))", "  (area [s k]))")],
    changed: &["scale-value", "Shape"],
    caller: "serve-request",
    callers_caller: "top-level-entry",
    implementer: Some(("SquareShape", "implements")),
    test: "test/app/scaler_test.clj",
    rename: ("src/app/scaler.clj", "(defn scale-value [x]", "(defn scale-by-two [x]"),
    renamed: ("scale-by-two", "scale-value"),
    deleted: "src/app/extra.clj",
};

macro_rules! languages {
    ($($test:ident: $case:ident),* $(,)?) => {
        $(#[test] fn $test() { check(&$case); })*
    };
}

languages! {
    impact_in_python: PYTHON,
    impact_in_javascript: JAVASCRIPT,
    impact_in_typescript: TYPESCRIPT,
    impact_in_go: GO,
    impact_in_rust: RUST,
    impact_in_java: JAVA,
    impact_in_ruby: RUBY,
    impact_in_c: C,
    impact_in_cpp: CPP,
    impact_in_csharp: CSHARP,
    impact_in_kotlin: KOTLIN,
    impact_in_php: PHP,
    impact_in_scala: SCALA,
    impact_in_swift: SWIFT,
    impact_in_lua: LUA,
    impact_in_elixir: ELIXIR,
    impact_in_bash: BASH,
    impact_in_zig: ZIG,
    impact_in_dart: DART,
    impact_in_haskell: HASKELL,
    impact_in_ocaml: OCAML,
    impact_in_erlang: ERLANG,
    impact_in_julia: JULIA,
    impact_in_r: R,
    impact_in_objc: OBJC,
    impact_in_perl: PERL,
    impact_in_clojure: CLOJURE,
}

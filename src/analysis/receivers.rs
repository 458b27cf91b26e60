//! Calls through a receiver whose type the code states: `state.save()`
//! with `state: &IndexState` in scope is a call of `IndexState.save`, which
//! the graph resolves to that method instead of giving up on a name that
//! many types define (`save`, `get`, `run`).
//!
//! A tags query marks each **binding** (`@binding`: a name and the type the
//! code gives it): a typed parameter or variable, a variable bound to a
//! constructor's result (`let x = Foo::new()`, `x = Foo()`, `new Foo()`), a
//! field of a class or struct. `@binding.member` marks one that belongs to
//! the class around its definition (Python's `self.x = Foo()` in
//! `__init__`, TypeScript's `constructor(private repo: Repo)`);
//! `@binding.alias` a type imported under another name (`from a import
//! Repo as R`, `use a::Repo as R;`, `import { Repo as R }`, Kotlin's and
//! Scala's `import a.Repo as R`, `import a.{Repo => R}`, PHP's `use
//! App\Repo as R;`, C#'s `using R = App.Repo;`), which a binding's type is
//! read through.
//!
//! A call `x.m` then reads `x`'s type from the innermost definition that
//! binds it (the caller, the definitions around it, the module); a chain of
//! fields (`self.store.save`, `s.db.Query`) goes through the fields of
//! each type the same file defines. Where any step is unknown or bound to
//! two types, the call stays as written.

use std::collections::HashMap;

use super::lang::Language;
use tree_sitter::Node;

use super::parse::{self, Symbol, SymbolKind};

/// A name the code gives a type, as the tags query captured it.
#[derive(Debug, Clone)]
pub struct Binding {
    /// Byte offset of the binding: where its scope is looked up.
    pub at: usize,
    pub name: String,
    /// The type's own name ([`type_name`] of what is written).
    pub type_name: String,
    pub kind: BindingKind,
}

/// What a binding's name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A variable or parameter, in the scope of the definition around it.
    Variable,
    /// A member of the class around the definition that holds it.
    Member,
    /// Another name of an imported type, in the whole file.
    TypeAlias,
}

impl BindingKind {
    /// The kind a tags query's capture names (`@binding`, `@binding.member`,
    /// `@binding.alias`).
    pub fn of_capture(capture: &str) -> BindingKind {
        match capture {
            "binding.member" => BindingKind::Member,
            "binding.alias" => BindingKind::TypeAlias,
            _ => BindingKind::Variable,
        }
    }
}

impl Binding {
    /// The binding a tags query's match captured (`name` and `type_name`
    /// nodes under `node`), when both are there and the type has a name.
    pub fn captured(source: &[u8], node: Node, kind: BindingKind, name: Option<Node>, type_name: Option<Node>) -> Option<Binding> {
        let name = parse::node_text(source, name?);
        let type_name = self::type_name(&parse::node_text(source, type_name?))?;
        Some(Binding { at: node.start_byte(), name, type_name, kind })
    }
}

/// Receivers that mean the enclosing class or object (the graph resolves
/// `self.m` itself; a chain through them is read here).
const SELF_RECEIVERS: [&str; 4] = ["self", "this", "$this", "Self"];

/// Types that hold one value of the type inside (`Option<Foo>`,
/// `Optional[Foo]`, `Box<dyn Foo>`, `std::shared_ptr<Foo>`): a call through
/// them reaches the inner type's method.
const WRAPPERS: [&str; 12] = ["Option", "Optional", "Box", "Rc", "Arc", "RefCell", "Mutex", "RwLock", "unique_ptr", "shared_ptr", "Nullable", "Lazy"];

/// What declares no type (`var x = …`, `auto`, `dynamic`): no binding.
const NOT_TYPES: [&str; 12] = ["var", "let", "val", "auto", "def", "dynamic", "any", "object", "void", "None", "null", "undefined"];

/// The own name of a type as written: `&mut IndexState` → `IndexState`,
/// `Option<Box<dyn Store>>` → `Store`, `crate::a::B<T>` → `B`, `*pkg.Server`
/// → `Server`, `Foo | None` → `Foo`, `"Repo"` → `Repo`, `List<Foo>` →
/// `List`. `None` when nothing names a type.
pub fn type_name(written: &str) -> Option<String> {
    let mut t: &str = written.trim();
    loop {
        let before = t;
        t = t.trim_matches(['"', '\'']).trim();
        for prefix in ["&", "*", "mut ", "dyn ", "impl ", "const ", "ref ", "readonly ", "?", "^"] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest.trim_start();
            }
        }
        // A lifetime after `&` (`&'a Foo`).
        if let Some(rest) = t.strip_prefix('\'') {
            t = rest.split_once(' ').map_or("", |(_, r)| r).trim_start();
        }
        // `Foo | None`, `Foo | undefined`: the alternative that is a type.
        if t.contains('|') && !t.contains(['<', '[']) {
            t = t.split('|').map(str::trim).find(|a| !NOT_TYPES.contains(a)).unwrap_or("");
        }
        if let Some(inner) = unwrapped(t) {
            t = inner;
        }
        if t == before {
            break;
        }
    }
    let head = t.split(['<', '[', '(', ' ', '{']).next().unwrap_or("");
    let head = head.trim_end_matches(['?', '!', '*', '&']);
    let own = head.rsplit(['.', ':', '\\']).next().unwrap_or("");
    let is_name = own.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && own.chars().all(|c| c.is_alphanumeric() || c == '_');
    (is_name && !NOT_TYPES.contains(&own)).then(|| own.to_string())
}

/// The type inside a wrapper (`Option<Foo>`, `Optional[Foo]`: `Foo`), or `None`.
fn unwrapped(t: &str) -> Option<&str> {
    let open = t.find(['<', '['])?;
    let close = if &t[open..=open] == "<" { '>' } else { ']' };
    let wrapper = t[..open].rsplit(['.', ':']).next().unwrap_or("");
    if !WRAPPERS.contains(&wrapper) || !t.ends_with(close) {
        return None;
    }
    let inner = &t[open + 1..t.len() - 1];
    // The first argument at depth 0 (`Mutex<Foo>`; `Lazy<Foo, F>`).
    let mut depth = 0usize;
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some(inner[..i].trim()),
            _ => {}
        }
    }
    Some(inner.trim())
}

/// Whether a bare name in a method can mean a field of its class (Java's
/// `repo.save()`), or only a local or global (Python, Rust, JavaScript,
/// Go, PHP need `self.`/`this.`/`$this->`).
fn members_in_scope(language: Language) -> bool {
    matches!(language, Language::Java | Language::CSharp | Language::Kotlin | Language::Cpp | Language::Scala | Language::Swift | Language::Dart)
}

/// A name's type in one scope: `None` when two bindings disagree.
type Table = HashMap<String, Option<String>>;

/// The bindings of one file, by the definition that scopes them.
pub struct Scopes {
    language: Language,
    per_symbol: Vec<Table>,
    module: Table,
    /// The first class, struct or interface of each name in the file.
    classes: HashMap<String, usize>,
    /// Types imported under another name: the name → the type's own name.
    aliases: HashMap<String, String>,
}

fn bind(table: &mut Table, name: &str, type_name: &str) {
    match table.get(name) {
        None => {
            table.insert(name.to_string(), Some(type_name.to_string()));
        }
        Some(Some(t)) if t == type_name => {}
        Some(_) => {
            table.insert(name.to_string(), None);
        }
    }
}

fn ancestors(symbols: &[Symbol], from: Option<usize>) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(from, |&s| symbols[s].parent_index)
}

impl Scopes {
    /// `bindings` with `owners[i]` the innermost definition around each.
    pub fn new(language: Language, symbols: &[Symbol], bindings: &[Binding], owners: &[Option<usize>]) -> Scopes {
        let mut classes = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            if s.kind.is_container() && s.kind != SymbolKind::Module {
                classes.entry(s.name.clone()).or_insert(i);
            }
        }
        // One node matched by two patterns (Java's `Base x = new Derived()`):
        // the first, the declared type, holds.
        let mut seen = std::collections::HashSet::new();
        let kept: Vec<(&Binding, Option<usize>)> =
            bindings.iter().zip(owners.iter().copied()).filter(|(b, _)| seen.insert((b.at, b.name.as_str(), b.kind))).collect();
        let mut scopes = Scopes { language, per_symbol: vec![Table::new(); symbols.len()], module: Table::new(), classes, aliases: HashMap::new() };
        for (b, owner) in kept {
            // A binding that defines a variable (`const db = new Db()` at the
            // top of a module) scopes by what holds the variable.
            let owner = match b.kind {
                BindingKind::Member => ancestors(symbols, owner).find(|&s| symbols[s].kind.is_container()),
                BindingKind::Variable => ancestors(symbols, owner).find(|&s| !matches!(symbols[s].kind, SymbolKind::Variable | SymbolKind::Const)),
                BindingKind::TypeAlias => {
                    if b.name != b.type_name {
                        scopes.aliases.insert(b.name.clone(), b.type_name.clone());
                    }
                    continue;
                }
            };
            match owner {
                Some(s) => bind(&mut scopes.per_symbol[s], &b.name, &b.type_name),
                None => bind(&mut scopes.module, &b.name, &b.type_name),
            }
        }
        scopes
    }

    /// Whether any binding was seen (most files of most languages: none).
    pub fn is_empty(&self) -> bool {
        self.module.is_empty() && self.per_symbol.iter().all(Table::is_empty)
    }

    /// A type's own name, read through the file's import aliases.
    fn unaliased(&self, type_name: String) -> String {
        self.aliases.get(&type_name).cloned().unwrap_or(type_name)
    }

    /// `call` (as written, in the definition `owner`) with its receiver
    /// replaced by the receiver's type (`state.save` → `IndexState.save`),
    /// or `None` when the receiver's type is not known.
    pub fn typed_call(&self, symbols: &[Symbol], owner: Option<usize>, call: &str) -> Option<String> {
        if call.contains(['(', '[', '<', ' ']) {
            return None;
        }
        let canonical = call.replace("::", ".").replace("->", ".").replace("?.", ".");
        let mut segments: Vec<&str> = canonical.split('.').collect();
        let method = segments.pop()?;
        let (&first, fields) = segments.split_first()?;
        if method.is_empty() || segments.iter().any(|s| s.is_empty()) {
            return None;
        }
        let mut type_name = if SELF_RECEIVERS.contains(&first) {
            if fields.is_empty() {
                return None;
            }
            let class = ancestors(symbols, owner).find(|&s| symbols[s].kind.is_container())?;
            symbols[class].name.clone()
        } else {
            self.unaliased(self.bound(symbols, owner, first)?)
        };
        for field in fields {
            let class = *self.classes.get(&type_name)?;
            type_name = self.unaliased(self.per_symbol[class].get(*field)?.clone()?);
        }
        Some(format!("{type_name}.{method}"))
    }

    /// The type bound to a bare `name` where `owner` uses it.
    fn bound(&self, symbols: &[Symbol], owner: Option<usize>, name: &str) -> Option<String> {
        // Ruby's `@repo` is the object's wherever it is used.
        let members = members_in_scope(self.language) || name.starts_with('@');
        for s in ancestors(symbols, owner) {
            if symbols[s].kind.is_container() && !members && symbols[s].kind != SymbolKind::Module {
                continue;
            }
            if let Some(found) = self.per_symbol[s].get(name) {
                return found.clone();
            }
        }
        self.module.get(name).cloned().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::type_name;
    use crate::analysis::lang::Language;
    use crate::analysis::parse::parse;

    /// The calls of the definition `qualified` in `source`.
    fn calls_of(language: Language, source: &str, qualified: &str) -> Vec<String> {
        let parsed = parse(language, source.as_bytes()).expect("grammar");
        let found = parsed.symbols.iter().find(|s| s.qualified_name == qualified);
        let names: Vec<&str> = parsed.symbols.iter().map(|s| s.qualified_name.as_str()).collect();
        found.unwrap_or_else(|| panic!("{qualified} not in {names:?}")).calls.clone()
    }

    #[test]
    fn a_call_through_a_typed_receiver_names_the_type_in_each_language() {
        let cases: [(Language, &str, &str, &[&str]); 26] = [
            (
                Language::Rust,
                "struct Heal { state: IndexState }\nimpl Heal {\n    fn run(&self, s: &mut IndexState, o: Option<Box<dyn Store>>) {\n        s.save();\n        self.state.load();\n        let t = Tree::new();\n        t.walk();\n        other.save();\n    }\n}\n",
                "Heal::run",
                &["IndexState.save", "IndexState.load", "Tree::new", "Tree.walk", "other.save"],
            ),
            (
                Language::Python,
                "class Heal:\n    def __init__(self):\n        self.repo = Repo()\n\n    def run(self, state: IndexState, other):\n        state.save()\n        self.repo.load()\n        t = models.Tree()\n        t.walk()\n        other.save()\n",
                "Heal.run",
                &["IndexState.save", "Repo.load", "models.Tree", "Tree.walk", "other.save"],
            ),
            (
                Language::Python,
                "db = Database()\n\ndef handler(x):\n    db.query(x)\n",
                "handler",
                &["Database.query"],
            ),
            (
                Language::TypeScript,
                "class Heal {\n  private cache: Cache;\n  constructor(private repo: Repo) {}\n  run(state: IndexState) {\n    state.save();\n    this.repo.load();\n    this.cache.clear();\n    const t = new Tree();\n    t.walk();\n  }\n}\n",
                "Heal.run",
                &["IndexState.save", "Repo.load", "Cache.clear", "Tree", "Tree.walk"],
            ),
            (
                Language::JavaScript,
                "const db = new Database();\nfunction handler(x) {\n  db.query(x);\n}\n",
                "handler",
                &["Database.query"],
            ),
            (
                Language::Java,
                "class Heal {\n  private UserRepo repo;\n  void run(IndexState state) {\n    state.save();\n    repo.load();\n    this.repo.find();\n    var t = new Tree();\n    t.walk();\n    Base b = new Derived();\n    b.go();\n  }\n}\n",
                "Heal.run",
                &["IndexState.save", "UserRepo.load", "UserRepo.find", "Tree", "Tree.walk", "Derived", "Base.go"],
            ),
            (
                Language::Go,
                "package p\n\ntype Server struct {\n\tstore *Store\n}\n\nfunc (s *Server) Run(st *IndexState) {\n\tst.Save()\n\ts.store.Load()\n\ts.handle()\n\tt := &Tree{}\n\tt.Walk()\n}\n",
                "Server.Run",
                &["IndexState.Save", "Store.Load", "Server.handle", "Tree.Walk"],
            ),
            (
                Language::CSharp,
                "class Heal {\n  private UserRepo _repo;\n  void Run(IndexState state) {\n    state.Save();\n    _repo.Load();\n    var t = new Tree();\n    t.Walk();\n  }\n}\n",
                "Heal.Run",
                &["IndexState.Save", "UserRepo.Load", "Tree", "Tree.Walk"],
            ),
            (
                Language::Kotlin,
                "class Heal(private val repo: UserRepo) {\n    fun run(state: IndexState) {\n        state.save()\n        repo.load()\n        val t = Tree()\n        t.walk()\n    }\n}\n",
                "Heal.run",
                &["IndexState.save", "UserRepo.load", "Tree", "Tree.walk"],
            ),
            (
                Language::Php,
                "<?php\nclass Heal {\n    private Cache $cache;\n    public function __construct(private UserRepo $repo) {}\n    public function run(IndexState $state) {\n        $state->save();\n        $this->repo->load();\n        $this->cache->clear();\n        $t = new Tree();\n        $t->walk();\n    }\n}\n",
                "Heal::run",
                &["IndexState.save", "UserRepo.load", "Cache.clear", "Tree", "Tree.walk"],
            ),
            (
                Language::Cpp,
                "class Heal {\n  Store* store;\n  void run(IndexState& state, Cache* cache) {\n    state.save();\n    cache->clear();\n    store->load();\n    Tree t;\n    t.walk();\n  }\n};\n",
                "Heal::run",
                &["IndexState.save", "Cache.clear", "Store.load", "Tree.walk"],
            ),
            (
                Language::Ruby,
                "class Heal\n  def initialize\n    @repo = Store::Repo.new\n  end\n\n  def run\n    @repo.load\n    t = Tree.new\n    t.walk\n  end\nend\n",
                "Heal#run",
                &["Repo.load", "Tree.new", "Tree.walk"],
            ),
            (
                Language::Swift,
                "class Heal {\n    var cache: Cache\n    func run(state: IndexState) {\n        state.save()\n        cache.clear()\n        let t = Tree()\n        t.walk()\n    }\n}\n",
                "Heal.run",
                &["IndexState.save", "Cache.clear", "Tree", "Tree.walk"],
            ),
            (
                Language::Scala,
                "class Heal(repo: UserRepo) {\n  def run(state: IndexState): Unit = {\n    state.save()\n    repo.load()\n    val t = new Tree()\n    t.walk()\n    val u = Node(1)\n    u.visit()\n  }\n}\n",
                "Heal.run",
                &["IndexState.save", "UserRepo.load", "Tree", "Tree.walk", "Node", "Node.visit"],
            ),
            // A type imported under another name is read as its own.
            (
                Language::Python,
                "from app.state import IndexState as State\n\ndef run(s: State):\n    s.save()\n    t = State()\n    t.load()\n",
                "run",
                &["IndexState.save", "State", "IndexState.load"],
            ),
            (
                Language::Rust,
                "use crate::state::IndexState as State;\n\nfn run(s: &State) {\n    s.save();\n}\n",
                "run",
                &["IndexState.save"],
            ),
            (
                Language::TypeScript,
                "import { IndexState as State } from './state';\n\nfunction run(s: State) {\n  s.save();\n}\n",
                "run",
                &["IndexState.save"],
            ),
            (Language::Kotlin, "import app.state.IndexState as State\n\nfun run(s: State) {\n    s.save()\n}\n", "run", &["IndexState.save"]),
            (
                Language::Php,
                "<?php\nuse App\\State\\IndexState as State;\n\nfunction run(State $s) {\n    $s->save();\n}\n",
                "run",
                &["IndexState.save"],
            ),
            (
                Language::CSharp,
                "using State = App.State.IndexState;\n\nclass K {\n  void Run(State s) {\n    s.Save();\n  }\n}\n",
                "K.Run",
                &["IndexState.Save"],
            ),
            (
                Language::Scala,
                "import app.state.{IndexState => State}\n\nclass K {\n  def run(s: State): Unit = {\n    s.save()\n  }\n}\n",
                "K.run",
                &["IndexState.save"],
            ),
            (
                Language::Scala,
                "import app.state.IndexState as State\n\nclass K {\n  def run(s: State): Unit = {\n    s.save()\n  }\n}\n",
                "K.run",
                &["IndexState.save"],
            ),
            // A name bound to two types, or not bound at all, stays as written.
            (Language::Python, "def f(flag):\n    if flag:\n        x = A()\n    else:\n        x = B()\n    x.run()\n", "f", &["A", "B", "x.run"]),
            // A Python method does not see its class's attributes by bare name.
            (Language::Python, "class K:\n    repo: Repo\n    def f(self, repo):\n        repo.save()\n", "K.f", &["repo.save"]),
            // A Java method does.
            (Language::Java, "class K {\n  Repo repo;\n  void f() { repo.save(); }\n}\n", "K.f", &["Repo.save"]),
            // Rust's `Self::new()` and a primitive leave the call to the graph.
            (Language::Rust, "impl K {\n    fn f(n: u32) {\n        let k = Self::new();\n        n.count_ones();\n    }\n}\n", "K::f", &["Self::new", "u32.count_ones"]),
        ];
        for (language, source, qualified, want) in cases {
            assert_eq!(calls_of(language, source, qualified), want, "{language:?}: {source}");
        }
    }

    #[test]
    fn a_type_is_named_by_its_own_part_inside_references_and_wrappers() {
        for (written, own) in [
            ("&mut IndexState", Some("IndexState")),
            ("&'a IndexState", Some("IndexState")),
            ("Option<Box<dyn Store>>", Some("Store")),
            ("crate::stores::state::IndexState", Some("IndexState")),
            ("*pkg.Server", Some("Server")),
            ("Optional[Repo]", Some("Repo")),
            ("Repo | None", Some("Repo")),
            ("\"Repo\"", Some("Repo")),
            ("List<Foo>", Some("List")),
            ("std::shared_ptr<Engine>", Some("Engine")),
            ("Repo?", Some("Repo")),
            ("var", None),
            ("[]int", None),
            ("", None),
        ] {
            assert_eq!(type_name(written).as_deref(), own, "{written}");
        }
    }
}

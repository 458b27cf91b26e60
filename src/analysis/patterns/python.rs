//! Python conventions: decorators, `except` clauses, logging calls, test
//! functions and classes, fixtures, base classes.

use super::*;

impl TreeMarker<'_> {
    /// `@name`, `@name(...)`: a Decorator, and Route / Fixture when it is one.
    pub(super) fn py_decorator(&mut self, deco: Node) {
        let Some(expr) = first_named(deco) else { return };
        let (callee, call) = if expr.kind() == "call" { (expr.child_by_field_name("function"), Some(expr)) } else { (Some(expr), None) };
        let Some(name) = callee.and_then(|c| self.dotted(c)) else { return };
        // The construct is the decorated definition (decorators and head of the body).
        let target = deco.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(deco);
        let (start, end) = (target.start_byte(), target.end_byte());

        let (obj, last) = match name.rsplit_once('.') {
            Some((o, l)) => (Some(o), l),
            None => (None, name.as_str()),
        };
        let key_name = match (obj, last) {
            // `@x.setter` for every property `x` is one convention.
            (Some(_), "setter" | "getter" | "deleter") => format!("*.{last}"),
            _ => name.clone(),
        };
        self.push(PatternCategory::Decorator, format!("decorator:@{key_name}"), start, end);

        if let (Some(obj), Some(call)) = (obj, call) {
            let first_arg = call.child_by_field_name("arguments").and_then(first_named);
            if PY_ROUTE_METHODS.contains(&last) && first_arg.is_some_and(|a| matches!(a.kind(), "string" | "concatenated_string")) {
                self.push(PatternCategory::Route, format!("route:{obj}.{last}"), start, end);
            }
        }
        if last == "fixture" {
            self.push(PatternCategory::Fixture, format!("fixture:{name}"), start, end);
        }
    }

    /// `except A [as e]:` → `except:A->action`.
    pub(super) fn py_except(&mut self, clause: Node) {
        let mut types = Vec::new();
        let mut alias = clause.child_by_field_name("alias").and_then(|a| self.compact(a));
        let mut cursor = clause.walk();
        let values: Vec<Node> = clause.children_by_field_name("value", &mut cursor).collect();
        for v in values {
            if v.kind() == "as_pattern" {
                // Some grammar versions read `A as e` as one expression.
                types.extend(first_named(v).map(|t| self.py_exception_types(t)).unwrap_or_default());
                if alias.is_none() {
                    alias = v.child_by_field_name("alias").and_then(|a| self.compact(a));
                }
            } else {
                types.extend(self.py_exception_types(v));
            }
        }
        types.sort();
        types.dedup();
        let types = if types.is_empty() { "*".to_string() } else { types.join("|") };
        let mut cursor = clause.walk();
        let block = clause.named_children(&mut cursor).filter(|c| c.kind() == "block").last();
        let action = match block {
            Some(b) => self.handler_action(b, alias.as_deref()),
            None => Action::Pass,
        };
        self.push(PatternCategory::ErrorHandling, format!("except:{types}->{}", action.as_str()), clause.start_byte(), clause.end_byte());
    }

    /// Flattens `(A, (B, c.D))` into names.
    pub(super) fn py_exception_types(&self, node: Node) -> Vec<String> {
        let mut types = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "tuple" | "parenthesized_expression" | "expression_list" => stack.extend(named(n)),
                _ => types.extend(self.compact(n)),
            }
        }
        types
    }

    /// `logger.info("... %s", x)` → `log:logger.info:%`.
    pub(super) fn py_logging(&mut self, call: Node) {
        let Some(callee) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else { return };
        let (Some(obj), Some(attr)) = (callee.child_by_field_name("object"), callee.child_by_field_name("attribute")) else { return };
        let level = self.text(attr).to_ascii_lowercase();
        if !LOG_LEVELS.contains(&level.as_str()) {
            return;
        }
        let Some(receiver) = self.dotted(obj).and_then(|r| logger_receiver(&r, false)) else { return };
        // `logging.log(level, msg)`: the message is the second argument.
        let msg_index = if level == "log" { 1 } else { 0 };
        let style = call.child_by_field_name("arguments").and_then(|args| nth_named(args, msg_index)).map_or("plain", |a| self.message_style(a));
        self.push(PatternCategory::Logging, format!("log:{receiver}.{level}:{style}"), call.start_byte(), call.end_byte());
    }

    /// `def test_*` at module level or in a test class; fixture methods of test classes.
    pub(super) fn py_test(&mut self, def: Node) {
        let Some(name) = def.child_by_field_name("name").map(|n| self.text(n).into_owned()) else { return };
        let outer = def.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(def);
        let Some(parent) = outer.parent() else { return };
        let is_test = is_test_name(&name);
        let key = match parent.kind() {
            "module" if is_test => "test:function".to_string(),
            "block" => {
                let Some(class) = parent.parent().filter(|c| c.kind() == "class_definition") else { return };
                if !self.py_is_test_class(class) {
                    return;
                }
                if is_test {
                    "test:method".to_string()
                } else if PY_FIXTURE_METHODS.contains(&name.as_str()) {
                    self.push(PatternCategory::Fixture, format!("fixture:{name}"), outer.start_byte(), outer.end_byte());
                    return;
                } else {
                    return;
                }
            }
            _ => return,
        };
        self.push(PatternCategory::Test, key, outer.start_byte(), outer.end_byte());
    }

    /// `class TestX:` or `class X(unittest.TestCase)`.
    pub(super) fn py_is_test_class(&self, class: Node) -> bool {
        if class.child_by_field_name("name").is_some_and(|n| self.text(n).starts_with("Test")) {
            return true;
        }
        self.py_base_names(class).iter().any(|b| b.ends_with("TestCase"))
    }

    pub(super) fn py_base_names(&self, class: Node) -> Vec<String> {
        let mut out = Vec::new();
        let Some(args) = class.child_by_field_name("superclasses") else { return out };
        let mut cursor = args.walk();
        for arg in args.named_children(&mut cursor) {
            // `Generic[T]` is a `Generic` base; `metaclass=M` is not a base.
            let base = if arg.kind() == "subscript" { arg.child_by_field_name("value") } else { Some(arg) };
            if let Some(name) = base.and_then(|b| self.dotted(b)) {
                out.push(name);
            }
        }
        out
    }

    pub(super) fn py_bases(&mut self, class: Node) {
        let bases = self.py_base_names(class);
        if bases.is_empty() {
            return;
        }
        let end = self.header_end(class, class.child_by_field_name("body"));
        for base in bases {
            if base != "object" {
                self.push(PatternCategory::BaseClass, format!("base:{base}"), class.start_byte(), end);
            }
        }
    }

    // ---- JavaScript / TypeScript ------------------------------------------------
}

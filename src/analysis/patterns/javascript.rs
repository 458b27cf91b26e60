//! JavaScript / TypeScript conventions: decorators, `catch` clauses and
//! promise `.catch`, logging, route registration, test blocks, base classes.

use super::*;

impl TreeMarker<'_> {
    /// `@Injectable()` → `decorator:@Injectable`.
    pub(super) fn js_decorator(&mut self, deco: Node) {
        let mut expr = first_named(deco);
        if let Some(p) = expr.filter(|e| e.kind() == "parenthesized_expression") {
            expr = first_named(p);
        }
        let Some(expr) = expr else { return };
        let callee = if expr.kind() == "call_expression" { expr.child_by_field_name("function") } else { Some(expr) };
        let Some(name) = callee.and_then(|c| self.dotted(c)) else { return };
        // The construct: the decorator through the definition it decorates.
        let end = match deco.parent() {
            Some(p) if p.kind() == "class_body" => {
                let mut next = deco.next_named_sibling();
                while let Some(n) = next.filter(|n| matches!(n.kind(), "decorator" | "comment")) {
                    next = n.next_named_sibling();
                }
                next.map_or(deco.end_byte(), |n| n.end_byte())
            }
            Some(p) => p.end_byte(),
            None => deco.end_byte(),
        };
        self.push(PatternCategory::Decorator, format!("decorator:@{name}"), deco.start_byte(), end);
    }

    /// `try {} catch (e) {}` → `catch:action`.
    pub(super) fn js_catch(&mut self, clause: Node) {
        let param = clause.child_by_field_name("parameter").filter(|p| p.kind() == "identifier").map(|p| self.text(p).into_owned());
        let action = match clause.child_by_field_name("body") {
            Some(body) => self.handler_action(body, param.as_deref()),
            None => Action::Pass,
        };
        self.push(PatternCategory::ErrorHandling, format!("catch:{}", action.as_str()), clause.start_byte(), clause.end_byte());
    }

    pub(super) fn js_call(&mut self, call: Node) {
        let Some(callee) = call.child_by_field_name("function") else { return };
        let args = call.child_by_field_name("arguments");
        match callee.kind() {
            "identifier" => {
                let name = self.text(callee);
                if JS_TEST_CALLS.contains(&&*name) {
                    self.js_test(call, &name, args);
                } else if JS_HOOKS.contains(&&*name) && args.is_some_and(|a| named(a).iter().any(|n| is_js_function(*n))) {
                    self.push(PatternCategory::Fixture, format!("fixture:{name}"), call.start_byte(), call.end_byte());
                }
            }
            "member_expression" => {
                let (Some(obj), Some(prop)) = (callee.child_by_field_name("object"), callee.child_by_field_name("property")) else { return };
                let prop_name = self.text(prop);
                if obj.kind() == "identifier" && JS_TEST_CALLS.contains(&&*self.text(obj)) && JS_TEST_MODIFIERS.contains(&&*prop_name) {
                    let base = self.text(obj).into_owned();
                    self.js_test(call, &base, args);
                    return;
                }
                if prop_name == "catch" {
                    self.js_promise_catch(call, prop, args);
                    return;
                }
                if obj.kind() == "identifier" && JS_ROUTE_METHODS.contains(&&*prop_name) {
                    let Some(args) = args else { return };
                    let list = named(args);
                    let is_path = list.first().is_some_and(|a| {
                        matches!(a.kind(), "string" | "template_string") && self.text(*a).trim_start_matches(['\'', '"', '`']).starts_with('/')
                    });
                    if is_path && list.len() >= 2 {
                        let obj_name = self.text(obj);
                        self.push(PatternCategory::Route, format!("route:{obj_name}.{prop_name}"), call.start_byte(), call.end_byte());
                    }
                    // Falls through: only a logger receiver below makes a logging call.
                }
                let level = prop_name.to_ascii_lowercase();
                if !LOG_LEVELS.contains(&level.as_str()) {
                    return;
                }
                let Some(receiver) = self.dotted(obj).and_then(|r| logger_receiver(&r, true)) else { return };
                let levels = if receiver == "console" { CONSOLE_LEVELS } else { LOG_LEVELS };
                if levels.contains(&level.as_str()) {
                    let style = args.and_then(|a| nth_named(a, 0)).map_or("plain", |a| self.message_style(a));
                    self.push(PatternCategory::Logging, format!("log:{receiver}.{level}:{style}"), call.start_byte(), call.end_byte());
                }
            }
            _ => {}
        }
    }

    /// `describe('name', fn)`, `it.only('name', fn)` → `test:describe` / `test:it`.
    pub(super) fn js_test(&mut self, call: Node, base: &str, args: Option<Node>) {
        let first = args.and_then(|a| nth_named(a, 0));
        if first.is_some_and(|f| matches!(f.kind(), "string" | "template_string")) {
            self.push(PatternCategory::Test, format!("test:{base}"), call.start_byte(), call.end_byte());
        }
    }

    /// `promise.catch(err => ...)`: an error handler when it is a function literal.
    pub(super) fn js_promise_catch(&mut self, call: Node, prop: Node, args: Option<Node>) {
        let Some(handler) = args.and_then(|a| nth_named(a, 0)).filter(|h| is_js_function(*h)) else { return };
        let param = js_first_param(handler).map(|p| self.text(p).into_owned());
        let action = match handler.child_by_field_name("body") {
            Some(body) if body.kind() == "statement_block" => self.handler_action(body, param.as_deref()),
            // `err => next(err)`: an expression body returns its value.
            Some(body) => self.handler_action(body, param.as_deref()).min(Action::Return),
            None => Action::Pass,
        };
        // From `catch` on: the receiver chain above it is not part of the handler.
        self.push(PatternCategory::ErrorHandling, format!("catch:{}", action.as_str()), prop.start_byte(), call.end_byte());
    }

    pub(super) fn js_bases(&mut self, class: Node) {
        let mut cursor = class.walk();
        let Some(heritage) = class.named_children(&mut cursor).find(|c| c.kind() == "class_heritage") else { return };
        let mut bases = Vec::new();
        let mut cursor = heritage.walk();
        for child in heritage.named_children(&mut cursor) {
            if child.kind() == "extends_clause" {
                // TypeScript: `extends A<T>` → the `value` fields.
                let mut c2 = child.walk();
                bases.extend(child.children_by_field_name("value", &mut c2).filter_map(|v| self.dotted(v)));
            } else if child.kind() != "implements_clause" && child.kind() != "comment" {
                bases.extend(self.dotted(child));
            }
        }
        let end = self.header_end(class, class.child_by_field_name("body"));
        for base in bases {
            if base != "Object" {
                self.push(PatternCategory::BaseClass, format!("base:{base}"), class.start_byte(), end);
            }
        }
    }

    // ---- shared -------------------------------------------------------------------
}

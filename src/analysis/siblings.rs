//! The parent and neighbours of a file's definitions, found in one walk of
//! its tree.
//!
//! Why: tree-sitter's `Node::parent` searches down from the root and
//! `Node::prev_sibling` from the parent, each step scanning children. For a
//! file of thousands of definitions side by side (a module of small
//! functions, a broken file whose errors flatten it), asking each
//! definition for its parent or its comments above was quadratic in the
//! number of siblings.
//!
//! Invariant: for a node this map holds, [`Siblings::prev`],
//! [`Siblings::next`] and [`Siblings::parent`] answer what tree-sitter's
//! own methods would; for any other node they ask tree-sitter.

use std::collections::HashMap;

use tree_sitter::Node;

/// The children of every node that holds one of the wanted ranges, in order.
pub(crate) struct Siblings<'t> {
    /// Each walked node with its children.
    families: Vec<(Node<'t>, Vec<Node<'t>>)>,
    /// A child's node id → (family, position among its siblings).
    at: HashMap<usize, (usize, usize)>,
}

impl<'t> Siblings<'t> {
    /// Walks `root` down to every node starting at one of `starts`: each
    /// node on the way has its children listed. A node none of `starts`
    /// falls in is not entered, so the walk costs the children of the
    /// wanted nodes' ancestors.
    pub(crate) fn around(root: Node<'t>, mut starts: Vec<usize>) -> Self {
        starts.sort_unstable();
        starts.dedup();
        let holds_a_start = |node: Node| {
            let first = starts.partition_point(|&s| s < node.start_byte());
            starts.get(first).is_some_and(|&s| s < node.end_byte())
        };
        let mut siblings = Siblings { families: Vec::new(), at: HashMap::new() };
        if starts.is_empty() {
            return siblings;
        }
        let mut stack = vec![root];
        let mut cursor = root.walk();
        while let Some(node) = stack.pop() {
            let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
            if children.is_empty() {
                continue;
            }
            let family = siblings.families.len();
            for (position, child) in children.iter().enumerate() {
                siblings.at.insert(child.id(), (family, position));
                if child.child_count() > 0 && holds_a_start(*child) {
                    stack.push(*child);
                }
            }
            siblings.families.push((node, children));
        }
        siblings
    }

    /// The sibling right before `node`, as [`Node::prev_sibling`].
    pub(crate) fn prev(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.at.get(&node.id()) {
            Some(&(family, position)) => position.checked_sub(1).map(|p| self.families[family].1[p]),
            None => node.prev_sibling(),
        }
    }

    /// The sibling right after `node`, as [`Node::next_sibling`].
    pub(crate) fn next(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.at.get(&node.id()) {
            Some(&(family, position)) => self.families[family].1.get(position + 1).copied(),
            None => node.next_sibling(),
        }
    }

    /// The node `node` is a child of, as [`Node::parent`].
    pub(crate) fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.at.get(&node.id()) {
            Some(&(family, _)) => Some(self.families[family].0),
            None => node.parent(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node of a small tree: the map answers as tree-sitter does.
    #[test]
    fn answers_as_tree_sitter_does() {
        let source = "// a\nfn a() {}\n/* b */\nfn b() { fn c() {} }\nstruct S;\nimpl S { fn d(&self) {} }\n";
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_rust::LANGUAGE.into()).expect("rust grammar");
        let tree = parser.parse(source, None).expect("parsed");
        let mut all = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            all.push(node);
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        let starts = all.iter().map(|n| n.start_byte()).collect();
        let siblings = Siblings::around(tree.root_node(), starts);
        assert_eq!(siblings.at.len() + 1, all.len(), "the walk reached every node but the root");
        for node in all {
            assert_eq!(siblings.prev(node), node.prev_sibling(), "prev of {node:?}");
            assert_eq!(siblings.next(node), node.next_sibling(), "next of {node:?}");
            assert_eq!(siblings.parent(node), node.parent(), "parent of {node:?}");
        }
    }
}

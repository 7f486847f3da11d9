//! Maps. Keys are kept in Erlang's map key order (term order, except that every
//! integer comes before every float, because map keys compare exactly).
//!
//! Like BEAM, a map has two shapes. Up to [`FLAT_MAX`] keys it is a sorted
//! vector (BEAM's flatmap): small, and copied whole when a shared map is
//! updated. Past that it is a persistent balanced tree whose nodes are
//! shared between versions, so `M1 = M0#{K => V}` copies only the path to
//! `K` while `M0` lives on, and nothing when `M0` is dead (the nodes are
//! then updated in place). Either way an update costs what BEAM's does:
//! O(n) for small maps, O(log n) for large ones.

use crate::order::cmp_exact;
use crate::term::Term;
use std::cmp::Ordering;
use triomphe::Arc;

/// The most keys a map keeps in the flat shape (BEAM's `MAP_SMALL_MAP_LIMIT`).
pub const FLAT_MAX: usize = 32;

/// A map key: a term ordered by exact term order.
#[derive(Clone, Debug)]
#[repr(transparent)]
pub struct MapKey(pub Term);

impl PartialEq for MapKey {
    fn eq(&self, o: &MapKey) -> bool {
        cmp_exact(&self.0, &o.0).is_eq()
    }
}
impl Eq for MapKey {}
impl PartialOrd for MapKey {
    fn partial_cmp(&self, o: &MapKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for MapKey {
    fn cmp(&self, o: &MapKey) -> std::cmp::Ordering {
        cmp_exact(&self.0, &o.0)
    }
}

/// The contents of a map term.
#[derive(Clone)]
pub struct MapRepr {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    /// Sorted by key.
    Flat(Vec<(Term, Term)>),
    Tree {
        root: Link,
        len: usize,
    },
}

impl Default for MapRepr {
    fn default() -> Self {
        MapRepr {
            repr: Repr::Flat(Vec::new()),
        }
    }
}

impl std::fmt::Debug for MapRepr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl MapRepr {
    pub fn new() -> MapRepr {
        MapRepr::default()
    }

    pub fn from_pairs<I: IntoIterator<Item = (Term, Term)>>(pairs: I) -> MapRepr {
        let mut m = MapRepr::new();
        for (k, v) in pairs {
            m.insert(k, v);
        }
        m
    }

    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Flat(v) => v.len(),
            Repr::Tree { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, k: &Term) -> Option<&Term> {
        match &self.repr {
            Repr::Flat(v) => flat_find(v, k).ok().map(|i| &v[i].1),
            Repr::Tree { root, .. } => tree_get(root, k),
        }
    }

    pub fn contains_key(&self, k: &Term) -> bool {
        self.get(k).is_some()
    }

    /// Inserts or replaces; returns the value replaced.
    pub fn insert(&mut self, k: Term, v: Term) -> Option<Term> {
        match &mut self.repr {
            Repr::Flat(entries) => match flat_find(entries, &k) {
                Ok(i) => Some(std::mem::replace(&mut entries[i].1, v)),
                Err(i) if entries.len() < FLAT_MAX => {
                    entries.insert(i, (k, v));
                    None
                }
                Err(_) => {
                    // Grow into the tree shape.
                    let mut root = None;
                    for (k0, v0) in std::mem::take(entries) {
                        tree_insert(&mut root, k0, v0);
                    }
                    tree_insert(&mut root, k, v);
                    self.repr = Repr::Tree {
                        root,
                        len: FLAT_MAX + 1,
                    };
                    None
                }
            },
            Repr::Tree { root, len } => {
                let old = tree_insert(root, k, v);
                if old.is_none() {
                    *len += 1;
                }
                old
            }
        }
    }

    pub fn remove(&mut self, k: &Term) -> Option<Term> {
        match &mut self.repr {
            Repr::Flat(entries) => {
                let i = flat_find(entries, k).ok()?;
                Some(entries.remove(i).1)
            }
            Repr::Tree { root, len } => {
                let old = tree_remove(root, k)?;
                *len -= 1;
                Some(old)
            }
        }
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Term, &Term)> + ExactSizeIterator {
        let mut out = Vec::with_capacity(self.len());
        match &self.repr {
            Repr::Flat(v) => out.extend(v.iter().map(|(k, v)| (k, v))),
            Repr::Tree { root, .. } => tree_collect(root, &mut out),
        }
        out.into_iter()
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Term> + ExactSizeIterator {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Term> + ExactSizeIterator {
        self.iter().map(|(_, v)| v)
    }
}

fn flat_find(entries: &[(Term, Term)], k: &Term) -> Result<usize, usize> {
    entries.binary_search_by(|(x, _)| cmp_exact(x, k))
}

// --- the persistent AVL tree

type Link = Option<Arc<Node>>;

#[derive(Clone)]
struct Node {
    key: Term,
    val: Term,
    left: Link,
    right: Link,
    height: u8,
}

fn height(l: &Link) -> u8 {
    l.as_ref().map_or(0, |n| n.height)
}

fn tree_get<'a>(mut l: &'a Link, k: &Term) -> Option<&'a Term> {
    while let Some(n) = l {
        match cmp_exact(k, &n.key) {
            Ordering::Less => l = &n.left,
            Ordering::Greater => l = &n.right,
            Ordering::Equal => return Some(&n.val),
        }
    }
    None
}

/// In-order entries (an explicit stack: no recursion on the tree's depth
/// is needed, though an AVL tree is never deeper than ~1.44 log2 n).
fn tree_collect<'a>(root: &'a Link, out: &mut Vec<(&'a Term, &'a Term)>) {
    let mut stack: Vec<&'a Node> = Vec::new();
    let mut cur = root.as_deref();
    loop {
        while let Some(n) = cur {
            stack.push(n);
            cur = n.left.as_deref();
        }
        let Some(n) = stack.pop() else { break };
        out.push((&n.key, &n.val));
        cur = n.right.as_deref();
    }
}

fn fix_height(n: &mut Node) {
    n.height = 1 + height(&n.left).max(height(&n.right));
}

/// A node for writing: its own copy unless nobody else shares it.
fn own(l: &mut Link) -> &mut Node {
    Arc::make_mut(l.as_mut().expect("a node"))
}

fn rotate_right(l: &mut Link) {
    let mut top = l.take();
    let mut left = own(&mut top).left.take();
    own(&mut top).left = own(&mut left).right.take();
    fix_height(own(&mut top));
    own(&mut left).right = top;
    fix_height(own(&mut left));
    *l = left;
}

fn rotate_left(l: &mut Link) {
    let mut top = l.take();
    let mut right = own(&mut top).right.take();
    own(&mut top).right = own(&mut right).left.take();
    fix_height(own(&mut top));
    own(&mut right).left = top;
    fix_height(own(&mut right));
    *l = right;
}

/// Restores the AVL balance at `l` after one of its subtrees changed height by one.
fn rebalance(l: &mut Link) {
    let n = own(l);
    fix_height(n);
    let (hl, hr) = (height(&n.left) as i32, height(&n.right) as i32);
    if hl - hr > 1 {
        let lt = n.left.as_ref().expect("left");
        if height(&lt.left) < height(&lt.right) {
            rotate_left(&mut n.left);
        }
        rotate_right(l);
    } else if hr - hl > 1 {
        let rt = n.right.as_ref().expect("right");
        if height(&rt.right) < height(&rt.left) {
            rotate_right(&mut n.right);
        }
        rotate_left(l);
    }
}

fn tree_insert(l: &mut Link, k: Term, v: Term) -> Option<Term> {
    let Some(n) = l else {
        *l = Some(Arc::new(Node {
            key: k,
            val: v,
            left: None,
            right: None,
            height: 1,
        }));
        return None;
    };
    let old = match cmp_exact(&k, &n.key) {
        Ordering::Equal => return Some(std::mem::replace(&mut own(l).val, v)),
        Ordering::Less => tree_insert(&mut own(l).left, k, v),
        Ordering::Greater => tree_insert(&mut own(l).right, k, v),
    };
    if old.is_none() {
        rebalance(l);
    }
    old
}

fn tree_remove(l: &mut Link, k: &Term) -> Option<Term> {
    let n = l.as_ref()?;
    let old = match cmp_exact(k, &n.key) {
        Ordering::Less => tree_remove(&mut own(l).left, k)?,
        Ordering::Greater => tree_remove(&mut own(l).right, k)?,
        Ordering::Equal => {
            let node = own(l);
            let old = match (node.left.is_some(), node.right.is_some()) {
                (false, _) => {
                    let right = node.right.take();
                    let val = std::mem::replace(&mut node.val, Term::Nil);
                    *l = right;
                    return Some(val);
                }
                (true, false) => {
                    let left = node.left.take();
                    let val = std::mem::replace(&mut node.val, Term::Nil);
                    *l = left;
                    return Some(val);
                }
                (true, true) => {
                    // Replace with the smallest entry of the right subtree.
                    let (sk, sv) = take_min(&mut node.right);
                    node.key = sk;
                    std::mem::replace(&mut node.val, sv)
                }
            };
            rebalance(l);
            return Some(old);
        }
    };
    rebalance(l);
    Some(old)
}

/// Removes and returns the smallest entry of a non-empty subtree.
fn take_min(l: &mut Link) -> (Term, Term) {
    let node = own(l);
    if node.left.is_some() {
        let kv = take_min(&mut node.left);
        rebalance(l);
        kv
    } else {
        let right = node.right.take();
        let key = std::mem::replace(&mut node.key, Term::Nil);
        let val = std::mem::replace(&mut node.val, Term::Nil);
        *l = right;
        (key, val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_balanced(l: &Link) -> u8 {
        match l {
            None => 0,
            Some(n) => {
                let (hl, hr) = (check_balanced(&n.left), check_balanced(&n.right));
                assert!((hl as i32 - hr as i32).abs() <= 1, "unbalanced");
                assert_eq!(n.height, 1 + hl.max(hr));
                n.height
            }
        }
    }

    fn keys_of(m: &MapRepr) -> Vec<i64> {
        m.keys().map(|k| k.as_int().unwrap()).collect()
    }

    #[test]
    fn both_shapes_agree_with_a_btreemap() {
        let mut m = MapRepr::new();
        let mut model = std::collections::BTreeMap::new();
        let mut x: i64 = 7;
        for step in 0..5000 {
            x = (x * 1103515245 + 12345) % 2147483648;
            let k = x % 300;
            if step % 3 == 2 {
                assert_eq!(
                    m.remove(&Term::Int(k)).map(|v| v.as_int().unwrap()),
                    model.remove(&k)
                );
            } else {
                assert_eq!(
                    m.insert(Term::Int(k), Term::Int(step))
                        .map(|v| v.as_int().unwrap()),
                    model.insert(k, step)
                );
            }
            assert_eq!(m.len(), model.len());
            if let Repr::Tree { root, .. } = &m.repr {
                check_balanced(root);
            }
        }
        assert_eq!(keys_of(&m), model.keys().copied().collect::<Vec<_>>());
        for (k, v) in &model {
            assert_eq!(m.get(&Term::Int(*k)).and_then(Term::as_int), Some(*v));
        }
    }

    #[test]
    fn updating_a_shared_map_leaves_the_original_alone() {
        let mut m0 = MapRepr::new();
        for i in 0..1000 {
            m0.insert(Term::Int(i), Term::Int(i));
        }
        let mut m1 = m0.clone();
        m1.insert(Term::Int(5), Term::atom("changed"));
        m1.insert(Term::Int(5000), Term::Int(0));
        m1.remove(&Term::Int(10));
        assert_eq!(m0.len(), 1000);
        assert_eq!(m0.get(&Term::Int(5)).and_then(Term::as_int), Some(5));
        assert!(m0.contains_key(&Term::Int(10)));
        assert_eq!(m1.len(), 1000);
        assert!(m1
            .get(&Term::Int(5))
            .is_some_and(|v| v.is_atom(crate::Atom::intern("changed"))));
    }

    #[test]
    fn integers_sort_before_floats_as_keys() {
        let m = MapRepr::from_pairs([
            (Term::Float(1.0), Term::Nil),
            (Term::Int(2), Term::Nil),
            (Term::Int(1), Term::Nil),
        ]);
        let ks: Vec<String> = m.keys().map(|k| format!("{k:?}")).collect();
        assert_eq!(ks, ["1", "2", "1.0"]);
    }
}

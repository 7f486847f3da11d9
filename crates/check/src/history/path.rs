//! Matching a history against the step graph: a search over (item, last
//! step matched, members of an unordered group still to match, bindings).
//! When no path matches, the deepest failure gives the verdict: a step the
//! history does not accept, steps that ended while more were expected, or
//! steps left over when the history was complete.

use super::steps::{Actual, Graph, Step};
use crate::compiled::{
    CompiledConsumed, CompiledHistory, CompiledItem, CompiledList, CompiledListItem,
    CompiledProperty, CompiledStep, Pat,
};
use crate::eval::matcher::{pid_term, Env};
use crate::eval::verdict::{GaveUp, Violation};
use std::collections::HashSet;
use trace_pattern::Bindings;
use trace_term::Term;

/// States a history search may visit before giving up.
const STATE_BUDGET: usize = 5_000_000;

fn bind(pat: &Pat, t: &Term, env: &Env) -> Option<Env> {
    let mut b = Bindings::new(pat.map.len());
    for (i, &v) in pat.map.iter().enumerate() {
        if let Some(x) = &env[v] {
            b.set(i, x.clone());
        }
    }
    let b = pat.pattern.matches_with(t, b)?;
    let mut out = env.clone();
    for (i, &v) in pat.map.iter().enumerate() {
        if let Some(x) = b.get(i) {
            match &out[v] {
                Some(y) if !trace_term::order::exact_eq(x, y) => return None,
                _ => out[v] = Some(x.clone()),
            }
        }
    }
    Some(out)
}

/// Every way `items` matches `actual` (all of it), extending `env`.
fn list(
    items: &[CompiledListItem],
    actual: &[Term],
    env: &Env,
    out: &mut Vec<Env>,
    budget: &mut usize,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let Some((first, rest)) = items.split_first() else {
        if actual.is_empty() {
            out.push(env.clone());
        }
        return;
    };
    match first {
        CompiledListItem::Star => {
            for skip in 0..=actual.len() {
                list(rest, &actual[skip..], env, out, budget);
            }
        }
        CompiledListItem::One(p) => {
            if let Some((a, more)) = actual.split_first() {
                if let Some(e) = bind(p, a, env) {
                    list(rest, more, &e, out, budget);
                }
            }
        }
        CompiledListItem::Group(g) => {
            if actual.len() < g.len() {
                return;
            }
            let (here, more) = actual.split_at(g.len());
            let mut envs = Vec::new();
            permutations(g, here, env, &mut vec![false; g.len()], &mut envs, budget);
            for e in envs {
                list(rest, more, &e, out, budget);
            }
        }
    }
}

/// Matches the items of `here` to the patterns of `g` in any order.
fn permutations(
    g: &[Pat],
    here: &[Term],
    env: &Env,
    used: &mut Vec<bool>,
    out: &mut Vec<Env>,
    budget: &mut usize,
) {
    let Some((a, more)) = here.split_first() else {
        out.push(env.clone());
        return;
    };
    for j in 0..g.len() {
        if used[j] || *budget == 0 {
            continue;
        }
        *budget -= 1;
        if let Some(e) = bind(&g[j], a, env) {
            used[j] = true;
            permutations(g, more, &e, used, out, budget);
            used[j] = false;
        }
    }
}

fn match_list(l: &CompiledList, actual: &[Term], env: &Env, budget: &mut usize) -> Vec<Env> {
    match l {
        CompiledList::Any => vec![env.clone()],
        CompiledList::Items(items) => {
            let mut out = Vec::new();
            list(items, actual, env, &mut out, budget);
            out
        }
    }
}

/// Every binding with which `s` matches the step, and, when there is none,
/// how many of its parts (process, consumed, sent, spawned) did match: the
/// closest miss is the one reported.
fn match_step(s: &CompiledStep, st: &Step, env: &Env, budget: &mut usize) -> (Vec<Env>, u8) {
    let Some(env) = bind(&s.process, &pid_term(Some(st.pid)), env) else {
        return (vec![], 0);
    };
    let env = match (&s.consumed, &st.consumed) {
        (CompiledConsumed::Any, _) => Some(env),
        (CompiledConsumed::Nothing, Actual::Nothing)
        | (CompiledConsumed::Timeout, Actual::Timeout) => Some(env),
        (CompiledConsumed::Message(p), Actual::Message(m)) => bind(p, m, &env),
        _ => None,
    };
    let Some(env) = env else { return (vec![], 1) };
    let sent = match_list(&s.sent, &st.sent, &env, budget);
    if sent.is_empty() {
        return (vec![], 2);
    }
    let mut out = Vec::new();
    for e in sent {
        out.extend(match_list(&s.spawned, &st.spawned, &e, budget));
    }
    (out, 3)
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Failure {
    /// Ranked: at equal depth a mismatch says most.
    Extra,
    MoreExpected,
    Mismatch,
}

struct Best {
    /// Items of the history matched so far.
    item_progress: usize,
    /// Parts of the failing step pattern that matched.
    closeness: u8,
    depth: usize,
    kind: Failure,
    /// The step concerned and the item expected (if any).
    step: Option<usize>,
    item: Option<usize>,
    env: Env,
}

fn env_key(env: &Env) -> Vec<u8> {
    let mut out = Vec::new();
    for v in env {
        match v {
            Some(t) => trace_term::etf::encode(t, &mut out),
            None => out.push(0),
        }
    }
    out
}

fn item_text(it: &CompiledItem) -> String {
    match it {
        CompiledItem::Step(s) => s.text.clone(),
        CompiledItem::Star => "*".into(),
        CompiledItem::Group(g) => format!(
            "[{}]",
            g.iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn describe(g: &Graph, k: usize) -> String {
    let s = &g.steps[k];
    let consumed = match &s.consumed {
        Actual::Nothing => "none".to_string(),
        Actual::Timeout => "timeout".to_string(),
        Actual::Message(m) => show(m),
    };
    let list = |v: &[Term]| format!("[{}]", v.iter().map(show).collect::<Vec<_>>().join(","));
    format!(
        "{{{}, {consumed}, {}, {}}}",
        show(&pid_term(Some(s.pid))),
        list(&s.sent),
        list(&s.spawned)
    )
}

fn show(t: &Term) -> String {
    trace_term::pretty(
        t,
        &trace_term::PrettyOptions {
            line_length: 0,
            ..Default::default()
        },
    )
}

/// Checks `h` from `roots`; `within`: follow only each process's own steps.
pub fn check(
    h: &CompiledHistory,
    prop: &CompiledProperty,
    env0: &Env,
    g: &Graph,
    roots: Vec<usize>,
    within: bool,
) -> Result<Option<Violation>, GaveUp> {
    let mut search = Search {
        items: &h.items,
        g,
        roots,
        within,
        stack: vec![(0, None, 0, env0.clone(), 0)],
        seen: HashSet::new(),
        best: None,
        budget: STATE_BUDGET,
    };
    if search.run()? {
        return Ok(None);
    }
    let Some(b) = search.best else {
        // No step at all (the subject has no log): nothing can match a
        // history that expects steps.
        return Ok(Some(Violation {
            slice: Vec::new(),
            slice_omitted: 0,
            event: None,
            what: "no steps to match: the process has no events in this log".into(),
            bindings: vec![],
            related: vec![],
        }));
    };
    Ok(Some(violation(b, &h.items, prop, g)))
}

/// A state of the search: (item, last step, group members left, bindings, depth).
type State = (usize, Option<usize>, u32, Env, usize);

/// The search, depth first, for a path of steps the history's items match.
struct Search<'a> {
    items: &'a [CompiledItem],
    g: &'a Graph,
    roots: Vec<usize>,
    within: bool,
    stack: Vec<State>,
    seen: HashSet<(usize, Option<usize>, u32, Vec<u8>)>,
    /// The deepest failure so far: the verdict when no path matches.
    best: Option<Best>,
    budget: usize,
}

impl Search<'_> {
    /// Whether some path matches.
    fn run(&mut self) -> Result<bool, GaveUp> {
        let items = self.items;
        let trailing_star = matches!(items.last(), Some(CompiledItem::Star));
        while let Some((i, s, mask, env, depth)) = self.stack.pop() {
            if !self.seen.insert((i, s, mask, env_key(&env))) {
                continue;
            }
            if self.budget == 0 {
                return Err(GaveUp(format!(
                    "the history search visited {STATE_BUDGET} states without a verdict"
                )));
            }
            self.budget -= 1;
            let ts = self.next(s);
            if i == items.len() {
                if trailing_star || ts.is_empty() {
                    return Ok(true);
                }
                self.note(Best {
                    item_progress: i,
                    closeness: 0,
                    depth,
                    kind: Failure::Extra,
                    step: ts.first().copied(),
                    item: None,
                    env,
                });
                continue;
            }
            match &items[i] {
                CompiledItem::Star => {
                    self.stack.push((i + 1, s, 0, env.clone(), depth));
                    for t in ts {
                        self.stack.push((i, Some(t), 0, env.clone(), depth + 1));
                    }
                }
                // A step is a group of one: matched in any order, all of it.
                CompiledItem::Step(p) => {
                    self.group(std::slice::from_ref(&**p), (i, s, mask, env, depth), &ts)
                }
                CompiledItem::Group(g) => self.group(g, (i, s, mask, env, depth), &ts),
            }
        }
        Ok(false)
    }

    /// The steps that may come after step `s` (the roots first).
    fn next(&self, s: Option<usize>) -> Vec<usize> {
        match s {
            None => self.roots.clone(),
            Some(k) if self.within => self.g.steps[k].next.into_iter().collect(),
            Some(k) => self.g.steps[k].succ.clone(),
        }
    }

    /// Keeps `b` if it goes further than the best failure so far.
    fn note(&mut self, b: Best) {
        let better = match &self.best {
            None => true,
            Some(x) => {
                (b.item_progress, b.closeness, b.depth, b.kind)
                    > (x.item_progress, x.closeness, x.depth, x.kind)
            }
        };
        if better {
            self.best = Some(b);
        }
    }

    /// Matches the next steps `ts` to the members of item `i` left in `mask`
    /// (all of them when 0), in any order.
    fn group(&mut self, members: &[CompiledStep], (i, s, mask, env, depth): State, ts: &[usize]) {
        let left = if mask == 0 {
            (1u32 << members.len()) - 1
        } else {
            mask
        };
        if ts.is_empty() {
            self.note(Best {
                item_progress: i,
                closeness: 0,
                depth,
                kind: Failure::MoreExpected,
                step: s,
                item: Some(i),
                env,
            });
            return;
        }
        let mut any = false;
        let mut closest = (0u8, ts[0]);
        for &t in ts {
            for (j, m) in members.iter().enumerate() {
                if left & (1 << j) == 0 {
                    continue;
                }
                let (envs, close) = match_step(m, &self.g.steps[t], &env, &mut self.budget);
                if close > closest.0 {
                    closest = (close, t);
                }
                for e in envs {
                    any = true;
                    let rest = left & !(1 << j);
                    if rest == 0 {
                        self.stack.push((i + 1, Some(t), 0, e, depth + 1));
                    } else {
                        self.stack.push((i, Some(t), rest, e, depth + 1));
                    }
                }
            }
        }
        if !any {
            self.note(Best {
                item_progress: i,
                closeness: closest.0,
                depth: depth + 1,
                kind: Failure::Mismatch,
                step: Some(closest.1),
                item: Some(i),
                env,
            });
        }
    }
}

/// The violation the deepest failure `b` stands for.
fn violation(b: Best, items: &[CompiledItem], prop: &CompiledProperty, g: &Graph) -> Violation {
    let vars = &prop.vars;
    let bindings = b
        .env
        .iter()
        .enumerate()
        .filter(|(i, v)| v.is_some() && !vars.is_constant(*i))
        .map(|(i, v)| (vars.names[i].clone(), v.clone().expect("filtered")))
        .collect();
    let step_name = |k: usize| {
        let st = &g.steps[k];
        format!("step {} of its process", st.number)
    };
    let (event, what) = match b.kind {
        Failure::Mismatch => {
            let k = b.step.expect("a mismatch has a step");
            (
                Some(g.steps[k].start),
                format!(
                    "violation: {} {} does not match {}",
                    step_name(k),
                    describe(g, k),
                    item_text(&items[b.item.expect("a mismatch has an item")])
                ),
            )
        }
        Failure::MoreExpected => (
            b.step.map(|k| g.steps[k].start),
            format!(
                "more behaviour expected: the steps end{} but the history still expects {}",
                b.step
                    .map(|k| format!(" after {} {}", step_name(k), describe(g, k)))
                    .unwrap_or_default(),
                item_text(&items[b.item.expect("an expectation has an item")])
            ),
        ),
        Failure::Extra => {
            let k = b.step.expect("extra behaviour has a step");
            (
                Some(g.steps[k].start),
                format!(
                    "unexpected extra behaviour: the history is complete, but {} {} follows",
                    step_name(k),
                    describe(g, k)
                ),
            )
        }
    };
    Violation {
        slice: Vec::new(),
        slice_omitted: 0,
        event,
        what,
        bindings,
        related: vec![],
    }
}

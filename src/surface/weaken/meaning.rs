//! What the names and constants of one Python, JavaScript/TypeScript or Go file mean, as far as
//! the file itself says: the detector of code that tells a test run from another run reads
//! expressions through it, so that a signal is found whatever it is called.
//!
//! - A name is followed to what it is bound to: an import and its alias (`import sys as s`, `from
//!   os import environ as E`, `import * as p from "node:process"`, `const {env} = process`,
//!   `require("os")`, a Go import path or its alias), a simple assignment (`m = sys.modules`, `x
//!   := os.Args[0]`, the first name of `exe, err := os.Executable()`), a destructured member, a
//!   loop variable over a collection, and a function whose return value is a signal (`def
//!   under_test(): return …`, then `under_test()`). Bindings are followed to a fixed point; a file
//!   is one scope (a name bound to a signal anywhere is a signal everywhere in it).
//! - A look-up with constant arguments is the member it names (`getattr(sys, "modules")`,
//!   `importlib.import_module("sys")`, `Reflect.get(globalThis, "it")`, `process["env"]`).
//! - Constant strings are folded: concatenation, adjacent literals, `sep.join([...])`,
//!   `[...].join(sep)`, `strings.Join`, f-strings and template literals of constants, `%`,
//!   `.format` and `fmt.Sprintf` with constants, case changes, `[::-1]`.
//!
//! A name nothing in the file binds stands for itself (a global, a builtin, a package used
//! without its import in a snippet).

use std::collections::HashMap;

use tree_sitter::Node;

use super::Language;
use super::tree::{descendants, named, string_value, text};

mod fold;

/// How strongly a value tells a test run from another run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    /// The host, the thread, the program's own name, its working directory or temporary folder:
    /// a signal only when it chooses what runs.
    Weak,
    /// State a runner changes that code also reads for its own purposes (the call stack, the
    /// build's information, fault handlers, captured output, a CI variable): a signal when it
    /// chooses what runs, shown when it is only read into a message.
    State,
    /// A question only a test run answers yes (a runner's module loaded, a variable only a
    /// runner sets, a runner's global): a signal wherever it is asked.
    Probe,
}

/// What an expression is: a canonical name (`sys.modules`, `os.getcwd()`, `process.env`), a
/// constant string, or a value derived from a signal.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Name(String),
    Str(String),
    Sig(Level),
}

/// One place a name is bound and how to compute what it is bound to.
enum How<'a> {
    /// The value of an expression.
    Value(Node<'a>),
    /// A fixed meaning (an import).
    Fixed(Val),
    /// A member of an expression (`const {env} = process`).
    Member(Node<'a>, String),
    /// A function: a signal if what it returns is.
    Func(Node<'a>),
    /// A name assigned beside an import that only a test run loads: a signal.
    Signal(Level),
}

/// The bindings of one file and the questions asked of its expressions.
pub(super) struct Meaning<'a> {
    pub src: &'a str,
    pub language: Language,
    bound: HashMap<String, Val>,
    sites: Vec<(String, How<'a>)>,
    /// Each node's parent, by id (tree-sitter finds a parent by walking down from the root).
    parents: HashMap<usize, Node<'a>>,
}

/// Whether a node is a function (a body whose returns are its value).
fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "method_declaration"
            | "func_literal"
            | "generator_function_declaration"
    )
}

/// A module name as bound: `node:os` is `os`.
fn module_name(name: &str) -> String {
    name.strip_prefix("node:").unwrap_or(name).to_string()
}

impl<'a> Meaning<'a> {
    /// The binding sites of a file (see [`Meaning::settle`]).
    pub fn new(root: Node<'a>, src: &'a str, language: Language) -> Self {
        let mut m = Meaning {
            src,
            language,
            bound: HashMap::new(),
            sites: Vec::new(),
            parents: HashMap::new(),
        };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            m.sites_of(node);
            for kid in super::tree::kids(node) {
                m.parents.insert(kid.id(), node);
                stack.push(kid);
            }
        }
        m
    }

    /// A node's parent.
    pub fn up(&self, node: Node<'a>) -> Option<Node<'a>> {
        self.parents.get(&node.id()).copied()
    }

    /// Follow the bindings to a fixed point, `signal` telling which expressions are signals.
    /// After the first round, a site is read again only if a name it mentions changed after it
    /// was last read.
    pub fn settle(&mut self, signal: &dyn Fn(&Meaning<'a>, Node<'a>) -> Option<Level>) {
        let m = self;
        // The names each site's expression mentions.
        let mentions: Vec<Vec<String>> = m
            .sites
            .iter()
            .map(|(_, how)| {
                let node = match how {
                    How::Value(n) | How::Member(n, _) | How::Func(n) => *n,
                    How::Fixed(_) | How::Signal(_) => return Vec::new(),
                };
                descendants(node)
                    .into_iter()
                    .filter(|d| d.kind().ends_with("identifier"))
                    .map(|d| text(d, m.src).to_string())
                    .collect()
            })
            .collect();
        // When each name last changed: (round, site).
        let mut stamp: HashMap<String, (usize, usize)> = HashMap::new();
        for round in 0..6 {
            let mut changed = false;
            for (i, mentioned) in mentions.iter().enumerate() {
                let stale = round == 0
                    || mentioned.iter().any(|n| {
                        stamp
                            .get(n)
                            .is_some_and(|&(r, j)| r == round || (r + 1 == round && j >= i))
                    });
                if !stale {
                    continue;
                }
                let val = match &m.sites[i].1 {
                    How::Value(rhs) => m.value_of(*rhs, signal),
                    How::Fixed(v) => Some(v.clone()),
                    How::Member(obj, prop) => match m.eval(*obj) {
                        Some(Val::Name(o)) => Some(Val::Name(format!("{o}.{prop}"))),
                        Some(Val::Sig(l)) => Some(Val::Sig(l)),
                        _ => m.subtree_level(*obj, signal).map(Val::Sig),
                    },
                    How::Func(body) => m.returns_level(*body, signal).map(Val::Sig),
                    How::Signal(l) => Some(Val::Sig(*l)),
                };
                let Some(val) = val else { continue };
                let name = m.sites[i].0.clone();
                let merged = match (m.bound.get(&name), &val) {
                    (None, _) => Some(val),
                    (Some(Val::Sig(old)), Val::Sig(new)) if new > old => Some(val),
                    (Some(Val::Sig(_)), _) => None,
                    (Some(_), Val::Sig(_)) => Some(val),
                    (Some(old), _) if *old == val => None,
                    // Two meanings for one name: the first stays.
                    (Some(_), _) => None,
                };
                if let Some(v) = merged {
                    m.bound.insert(name.clone(), v);
                    stamp.insert(name, (round, i));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// What a binding site binds: a signal if its value holds one, else its meaning.
    fn value_of(
        &self,
        rhs: Node<'a>,
        signal: &dyn Fn(&Meaning<'a>, Node<'a>) -> Option<Level>,
    ) -> Option<Val> {
        if is_function(rhs.kind()) {
            return self.returns_level(rhs, signal).map(Val::Sig);
        }
        if let Some(l) = self.subtree_level(rhs, signal)
            && (l > Level::Weak || !self.mixes_inputs(rhs, signal))
        {
            return Some(Val::Sig(l));
        }
        if let Some(s) = self.fold(rhs) {
            return Some(Val::Str(s));
        }
        self.eval(rhs)
    }

    /// Whether `rhs` hands a weak signal to a call beside another input that is not a constant
    /// (`path.resolve(process.cwd(), configPath)`): the result is the program's data, a path it
    /// reads, not where it runs; binding it would carry the working directory into every value
    /// computed from that data.
    fn mixes_inputs(
        &self,
        rhs: Node<'a>,
        signal: &dyn Fn(&Meaning<'a>, Node<'a>) -> Option<Level>,
    ) -> bool {
        descendants(rhs)
            .into_iter()
            .filter(|d| matches!(d.kind(), "call" | "call_expression"))
            .any(|call| {
                let args: Vec<Node> = call
                    .child_by_field_name("arguments")
                    .map(named)
                    .unwrap_or_default();
                let weak = args
                    .iter()
                    .any(|a| self.subtree_level(*a, signal).is_some());
                let other = args.iter().any(|a| {
                    self.subtree_level(*a, signal).is_none()
                        && self.fold(*a).is_none()
                        && !a.kind().contains("number")
                        && !a.kind().contains("integer")
                        && !a.kind().contains("float")
                });
                weak && other
            })
    }

    /// The strongest signal in an expression, functions inside it left out, and the named
    /// arguments and object fields too: `ArgumentParser(prog=basename(sys.argv[0]))` is a parser,
    /// not the program's name, while `basename(sys.argv[0])` still is.
    pub fn subtree_level(
        &self,
        node: Node<'a>,
        signal: &dyn Fn(&Meaning<'a>, Node<'a>) -> Option<Level>,
    ) -> Option<Level> {
        let mut best = None;
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.id() != node.id()
                && (is_function(n.kind())
                    || matches!(n.kind(), "keyword_argument" | "pair" | "keyed_element"))
            {
                continue;
            }
            best = best.max(signal(self, n));
            stack.extend(named(n));
        }
        best
    }

    /// The strongest signal a function returns (an expression-bodied lambda or arrow: its body).
    fn returns_level(
        &self,
        func: Node<'a>,
        signal: &dyn Fn(&Meaning<'a>, Node<'a>) -> Option<Level>,
    ) -> Option<Level> {
        let body = func.child_by_field_name("body")?;
        if !matches!(body.kind(), "block" | "statement_block") {
            return self.subtree_level(body, signal);
        }
        let mut best = None;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "return_statement" {
                for e in named(n) {
                    best = best.max(self.subtree_level(e, signal));
                }
            } else if !is_function(n.kind()) {
                stack.extend(named(n));
            }
        }
        best
    }

    fn site(&mut self, name: Node<'a>, how: How<'a>) {
        if matches!(
            name.kind(),
            "identifier" | "shorthand_property_identifier_pattern" | "field_identifier"
        ) {
            let n = text(name, self.src).to_string();
            if n != "_" {
                self.sites.push((n, how));
            }
        }
    }

    /// The binding sites a node makes (see the module's documentation).
    fn sites_of(&mut self, node: Node<'a>) {
        let field = |n: &str| node.child_by_field_name(n);
        match (self.language, node.kind()) {
            (Language::Python, "import_statement") => self.python_import_sites(node),
            (Language::Python, "import_from_statement") => self.python_from_import_sites(node),
            (Language::Python, "assignment") | (Language::Python, "named_expression") => {
                let (left, right) = match node.kind() {
                    "assignment" => (field("left"), field("right")),
                    _ => (field("name"), field("value")),
                };
                if let (Some(left), Some(right)) = (left, right) {
                    self.assign(left, right);
                }
            }
            (Language::Python, "function_definition") => {
                if let Some(name) = field("name") {
                    self.site(name, How::Func(node));
                }
            }
            (Language::Python, "for_statement") | (Language::Python, "for_in_clause") => {
                if let (Some(left), Some(right)) = (field("left"), field("right"))
                    && left.kind() == "identifier"
                {
                    self.site(left, How::Value(right));
                }
            }
            (_, "variable_declarator") => {
                if let (Some(name), Some(value)) = (field("name"), field("value")) {
                    self.assign(name, value);
                }
            }
            (_, "assignment_expression") if self.language != Language::Go => {
                if let (Some(l), Some(r)) = (field("left"), field("right")) {
                    self.assign(l, r);
                }
            }
            (Language::JavaScript | Language::TypeScript | Language::Tsx, "import_statement") => {
                self.js_import_sites(node)
            }
            (_, "function_declaration") | (_, "method_definition") | (_, "method_declaration") => {
                self.function_sites(node)
            }
            (Language::Go, "import_spec") => self.go_import_sites(node),
            (Language::Go, "short_var_declaration")
            | (Language::Go, "assignment_statement")
            | (Language::Go, "var_spec")
            | (Language::Go, "const_spec") => self.go_assignment_sites(node),
            (Language::Go, "range_clause") => {
                if let (Some(left), Some(right)) = (field("left"), field("right"))
                    && let Some(last) = named(left).last()
                {
                    self.site(*last, How::Value(right));
                }
            }
            _ => {}
        }
    }

    /// What a Python `import` binds: `import os.path` the top module's name, `import sys as s`
    /// the alias.
    fn python_import_sites(&mut self, node: Node<'a>) {
        let src = self.src;
        for child in named(node) {
            match child.kind() {
                "dotted_name" => {
                    let full = text(child, src);
                    let top = full.split('.').next().unwrap_or(full);
                    if let Some(first) = named(child).first() {
                        self.site(*first, How::Fixed(Val::Name(top.to_string())));
                    }
                }
                "aliased_import" => {
                    if let (Some(n), Some(a)) = (
                        child.child_by_field_name("name"),
                        child.child_by_field_name("alias"),
                    ) {
                        let full = text(n, src).to_string();
                        self.site(a, How::Fixed(Val::Name(full)));
                    }
                }
                _ => {}
            }
        }
    }

    /// What a Python `from … import` binds: each name (or its alias) to the module's member.
    fn python_from_import_sites(&mut self, node: Node<'a>) {
        let src = self.src;
        let Some(module) = node.child_by_field_name("module_name") else {
            return;
        };
        let module = text(module, src).to_string();
        let mut cursor = node.walk();
        for child in node.children_by_field_name("name", &mut cursor) {
            let (n, a) = match child.kind() {
                "aliased_import" => (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("alias"),
                ),
                _ => (Some(child), named(child).last().copied()),
            };
            if let (Some(n), Some(a)) = (n, a) {
                let full = format!("{module}.{}", text(n, src));
                self.site(a, How::Fixed(Val::Name(full)));
            }
        }
    }

    /// What a JavaScript/TypeScript `import` binds: the default and namespace imports to the
    /// module, each named import (or its alias) to the module's member.
    fn js_import_sites(&mut self, node: Node<'a>) {
        let src = self.src;
        let Some(source) = node
            .child_by_field_name("source")
            .and_then(|s| string_value(s, src))
        else {
            return;
        };
        let module = module_name(&source);
        for d in descendants(node) {
            match d.kind() {
                "import_clause" => {
                    if let Some(first) = named(d).first()
                        && first.kind() == "identifier"
                    {
                        self.site(*first, How::Fixed(Val::Name(module.clone())));
                    }
                }
                "namespace_import" => {
                    if let Some(id) = named(d).last() {
                        self.site(*id, How::Fixed(Val::Name(module.clone())));
                    }
                }
                "import_specifier" => {
                    let name = d.child_by_field_name("name");
                    let alias = d.child_by_field_name("alias").or(name);
                    if let (Some(n), Some(a)) = (name, alias) {
                        let full = format!("{module}.{}", text(n, src));
                        self.site(a, How::Fixed(Val::Name(full)));
                    }
                }
                _ => {}
            }
        }
    }

    /// What a function or method declaration binds: its name to the function (a JavaScript
    /// method by its name, read as `this.name`).
    fn function_sites(&mut self, node: Node<'a>) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        if name.kind() == "property_identifier" {
            self.sites
                .push((text(name, self.src).to_string(), How::Func(node)));
        } else {
            self.site(name, How::Func(node));
        }
    }

    /// What a Go import binds: its alias or the path's last part, to the import path (`_` and
    /// `.` bind nothing).
    fn go_import_sites(&mut self, node: Node<'a>) {
        let src = self.src;
        let Some(path) = node
            .child_by_field_name("path")
            .and_then(|p| string_value(p, src))
        else {
            return;
        };
        let short = path.rsplit('/').next().unwrap_or(&path).to_string();
        let name = match node.child_by_field_name("name") {
            Some(n) => text(n, src).to_string(),
            None => short,
        };
        if name != "_" && name != "." {
            self.sites.push((name, How::Fixed(Val::Name(path))));
        }
    }

    /// What a Go `:=`, `=`, `var` or `const` binds: each name to its value, or the names before
    /// the last to a call's one value.
    fn go_assignment_sites(&mut self, node: Node<'a>) {
        let field = |n: &str| node.child_by_field_name(n);
        let (left, right) = match node.kind() {
            "var_spec" | "const_spec" => {
                let mut cursor = node.walk();
                let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
                let values = field("value").map(named).unwrap_or_default();
                (names, values)
            }
            _ => (
                field("left").map(named).unwrap_or_default(),
                field("right").map(named).unwrap_or_default(),
            ),
        };
        if left.len() == right.len() {
            for (l, r) in left.iter().zip(&right) {
                self.site(*l, How::Value(*r));
            }
        } else if let [r] = right.as_slice() {
            // `exe, err := os.Executable()`, `bi, ok := debug.ReadBuildInfo()`: the
            // values are the names before the last; the error or the flag is not
            // (but `LookupEnv`'s flag is whether the variable is set).
            let all = text(*r, self.src).contains("LookupEnv");
            let values = if all {
                left.len()
            } else {
                left.len().saturating_sub(1)
            };
            for l in &left[..values] {
                self.site(*l, How::Value(*r));
            }
        }
    }

    /// `left = right`: a name, or a destructuring of members (`const {env: E} = process`), or a
    /// tuple whose first name takes a call's value (`frame, _ = f()`).
    fn assign(&mut self, left: Node<'a>, right: Node<'a>) {
        match left.kind() {
            "identifier" => {
                if is_function(right.kind()) {
                    self.site(left, How::Func(right));
                } else {
                    self.site(left, How::Value(right));
                }
            }
            "object_pattern" => {
                for p in named(left) {
                    match p.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let n = text(p, self.src).to_string();
                            self.site(p, How::Member(right, n));
                        }
                        "pair_pattern" => {
                            if let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            {
                                let n = text(k, self.src).to_string();
                                self.site(v, How::Member(right, n));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "pattern_list" | "tuple_pattern" | "array_pattern" => {
                if let Some(first) = named(left).first() {
                    self.site(*first, How::Value(right));
                }
            }
            _ => {}
        }
    }

    /// Bind the names assigned inside `scope` (the try around an import only a test run
    /// loads), and `name` itself, to a signal.
    pub fn mark(&mut self, scope: Option<Node<'a>>, name: Option<Node<'a>>, level: Level) {
        if let Some(n) = name {
            self.site(n, How::Signal(level));
        }
        for d in scope.map(descendants).unwrap_or_default() {
            let target = match d.kind() {
                "assignment" => d.child_by_field_name("left"),
                "variable_declarator" => d.child_by_field_name("name"),
                "assignment_expression" => d.child_by_field_name("left"),
                _ => None,
            };
            if let Some(t) = target {
                self.site(t, How::Signal(level));
            }
        }
    }

    /// Whether the file binds `name` (a local `jest` is not the runner's global).
    pub fn binds(&self, name: &str) -> bool {
        self.bound.contains_key(name) || self.sites.iter().any(|(n, _)| n == name)
    }

    /// What an expression is (see [`Val`]); None for what has no name (arithmetic, literals
    /// other than strings).
    pub fn eval(&self, node: Node<'a>) -> Option<Val> {
        match node.kind() {
            "identifier" | "shorthand_property_identifier" | "this" => {
                let t = text(node, self.src);
                Some(
                    self.bound
                        .get(t)
                        .cloned()
                        .unwrap_or_else(|| Val::Name(t.to_string())),
                )
            }
            "meta_property" => Some(Val::Name("import.meta".into())),
            "parenthesized_expression"
            | "await"
            | "await_expression"
            | "as_expression"
            | "non_null_expression"
            | "satisfies_expression"
            | "type_assertion" => named(node).first().and_then(|n| self.eval(*n)),
            "attribute" | "member_expression" | "selector_expression" => self.eval_member(node),
            "subscript" | "subscript_expression" | "index_expression" => self.eval_index(node),
            "slice_expression" => Some(Val::Name(format!(
                "{}[:]",
                match self.eval(named(node).first().copied()?)? {
                    Val::Name(o) => o,
                    v => return Some(v),
                }
            ))),
            "new_expression" => {
                let ctor = node.child_by_field_name("constructor")?;
                match self.eval(ctor)? {
                    Val::Name(c) => Some(Val::Name(format!("{c}()"))),
                    v => Some(v),
                }
            }
            "call" | "call_expression" => self.eval_call(node),
            _ => self.fold(node).map(Val::Str),
        }
    }

    /// What a member is (`sys.modules`): its object's name and its own, a signal if its object
    /// is one, or the file's method `self.f`/`this.f` by its name.
    fn eval_member(&self, node: Node<'a>) -> Option<Val> {
        let src = self.src;
        let obj = named(node).first().copied()?;
        let prop = node
            .child_by_field_name("attribute")
            .or_else(|| node.child_by_field_name("property"))
            .or_else(|| node.child_by_field_name("field"))?;
        let prop = text(prop, src);
        // `self.f()`, `this.f()`: a method of the file, by its name.
        if matches!(text(obj, src), "self" | "this" | "cls")
            && let Some(Val::Sig(l)) = self.bound.get(prop)
        {
            return Some(Val::Sig(*l));
        }
        match self.eval(obj)? {
            Val::Name(o) => Some(Val::Name(format!("{o}.{prop}"))),
            Val::Sig(l) => Some(Val::Sig(l)),
            Val::Str(_) => None,
        }
    }

    /// What an indexed value is: in JavaScript a constant key is a member (`process["env"]`);
    /// elsewhere a number or a constant key is kept (`sys.argv[0]`) and any other key is `[]`.
    fn eval_index(&self, node: Node<'a>) -> Option<Val> {
        let js = !matches!(self.language, Language::Python | Language::Go);
        let obj = named(node).first().copied()?;
        let key = node
            .child_by_field_name("subscript")
            .or_else(|| node.child_by_field_name("index"))
            .or_else(|| named(node).get(1).copied());
        let key = key.map(|k| match self.fold(k) {
            Some(s) => (true, s),
            None => (false, text(k, self.src).to_string()),
        });
        match self.eval(obj)? {
            Val::Name(o) => Some(Val::Name(match key {
                Some((true, s)) if js => format!("{o}.{s}"),
                Some((_, s)) if s.chars().all(|c| c.is_ascii_digit() || c == '"') => {
                    format!("{o}[{s}]")
                }
                Some((true, s)) => format!("{o}[{s}]"),
                _ => format!("{o}[]"),
            })),
            Val::Sig(l) => Some(Val::Sig(l)),
            Val::Str(_) => None,
        }
    }

    /// What a call is: the member or module a look-up with constant arguments names, else its
    /// callee's name called (`os.getcwd()`), or the signal its callee is.
    fn eval_call(&self, node: Node<'a>) -> Option<Val> {
        let callee = node.child_by_field_name("function")?;
        let args: Vec<Node> = node
            .child_by_field_name("arguments")
            .map(named)
            .unwrap_or_default();
        let c = match self.eval(callee)? {
            Val::Name(c) => c,
            v => return Some(v),
        };
        if let Some(v) = self.looked_up(&c, &args) {
            return Some(v);
        }
        // A copy of a value is that value (`dict(os.environ)`, `{...process.env}`'s
        // `Object.assign({}, env)` aside): what it reads is what the original reads.
        if COPIES.contains(&c.as_str())
            && let [arg] = args.as_slice()
            && let Some(v @ (Val::Name(_) | Val::Sig(_))) = self.eval(*arg)
        {
            return Some(v);
        }
        Some(Val::Name(format!("{c}()")))
    }

    /// What a look-up with constant arguments names (`getattr(sys, "modules")`,
    /// `importlib.import_module("sys")`, `require("os")`), `callee` being the look-up's name.
    fn looked_up(&self, callee: &str, args: &[Node<'a>]) -> Option<Val> {
        let arg = |i: usize| args.get(i).and_then(|a| self.fold(*a));
        let obj = |i: usize| match args.get(i).and_then(|a| self.eval(*a)) {
            Some(Val::Name(o)) => Some(o),
            _ => None,
        };
        match callee {
            "getattr" | "Reflect.get" => {
                if let (Some(o), Some(a)) = (obj(0), arg(1)) {
                    return Some(Val::Name(format!("{o}.{a}")));
                }
                if let Some(Val::Sig(l)) = args.first().and_then(|a| self.eval(*a)) {
                    return Some(Val::Sig(l));
                }
                None
            }
            "__import__" | "importlib.import_module" | "require" => {
                arg(0).map(|a| Val::Name(module_name(&a)))
            }
            _ => None,
        }
    }
}

/// Calls that copy their one argument (a mapping, a list, a set): the copy reads what it reads.
const COPIES: &[&str] = &[
    "dict",
    "list",
    "set",
    "tuple",
    "frozenset",
    "sorted",
    "copy.copy",
    "copy.deepcopy",
    "Object.keys",
    "Object.entries",
    "structuredClone",
    "maps.Clone",
];

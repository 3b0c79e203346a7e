//! Is a change of criteria material (a lowered bar) or safe (a typo, a split)? Pure rules.

use std::collections::HashSet;

use similar::TextDiff;

use crate::pin;

/// Below this similarity ratio a rewording is a different requirement.
pub const MIN_RATIO: f32 = 0.6;

/// Why a change of one criterion is material, or None when it is safe.
pub fn rewording(old: &str, new: &[&str]) -> Option<String> {
    let joined = new.join(" ");
    // A bound turns an exact figure into a range ("returns 4" → "returns at most 4").
    let old_bounds = bounds(old);
    let added: Vec<&str> = bounds(&joined)
        .into_iter()
        .filter(|b| !old_bounds.contains(b))
        .collect();
    if !added.is_empty() {
        return Some(format!(
            "turns an exact figure into a bound (\"{}\")",
            added.join("\", \"")
        ));
    }
    // An alternative gives the requirement a way out ("returns 4, or raises").
    let (before, after) = (alternatives(old), alternatives(&joined));
    if let Some(word) = after.iter().find(|w| {
        after.iter().filter(|a| a == w).count() > before.iter().filter(|b| b == w).count()
    }) {
        return Some(format!("adds the alternative \"{word}\""));
    }
    // A negation turns a requirement into its opposite, however similar the words.
    let added: Vec<&str> = negations(&joined)
        .into_iter()
        .filter(|n| !negations(old).contains(n))
        .collect();
    if !added.is_empty() {
        return Some(format!("adds the negation \"{}\"", added.join(" ")));
    }
    let dropped: Vec<String> = numbers(old)
        .into_iter()
        .filter(|n| !numbers(&joined).contains(n))
        .collect();
    if !dropped.is_empty() {
        return Some(format!("drops the number {}", dropped.join(", ")));
    }
    if new.len() > 1 {
        // A split is safe when the parts together still say everything the old text said.
        let missing: Vec<String> = words(old)
            .into_iter()
            .filter(|w| !words(&joined).contains(w))
            .collect();
        return (!missing.is_empty())
            .then(|| format!("the split parts leave out \"{}\"", missing.join(" ")));
    }
    // Dropping a clause lowers the bar even when the rest reads the same.
    let missing: Vec<String> = words(old)
        .into_iter()
        .filter(|w| !words(&joined).contains(w))
        .collect();
    if missing.len() >= 2 {
        let mut missing = missing;
        missing.sort();
        return Some(format!("drops \"{}\"", missing.join(" ")));
    }
    let ratio = similarity(old, &joined);
    (ratio < MIN_RATIO).then(|| {
        format!("rewords it into a different requirement (similarity {ratio:.2} < {MIN_RATIO})")
    })
}

/// Negation words in a text (whole words for Latin text, substrings for CJK).
fn negations(text: &str) -> Vec<&'static str> {
    const LATIN: &[&str] = &[
        "not", "no", "never", "without", "don't", "doesn't", "isn't", "aren't", "won't", "cannot",
        "can't", "nor", "none",
    ];
    const CJK: &[&str] = &["不", "没", "无", "未", "别"];
    let lower = text.to_lowercase();
    let words: HashSet<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .collect();
    LATIN
        .iter()
        .copied()
        .filter(|n| words.contains(n))
        .chain(CJK.iter().copied().filter(|n| lower.contains(n)))
        .collect()
}

/// Lower-case word and number tokens, with comparison signs as tokens of their own.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_alphanumeric()
            || c == '\''
            || (c == '.' && current.ends_with(|d: char| d.is_ascii_digit()))
        {
            current.push(c);
            continue;
        }
        if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if matches!(c, '<' | '>' | '≤' | '≥' | '=' | '~' | '≈') {
            // `<=` and `>=` are one sign.
            match (out.last_mut(), c) {
                (Some(last), '=') if last == "<" || last == ">" => last.push('='),
                _ => out.push(c.to_string()),
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn is_figure(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_digit())
}

/// Phrases that bound the figure after them ("at most 4", "under 200", "≤ 4"), as tokens.
const BOUNDS_BEFORE: &[&str] = &[
    "at most",
    "at least",
    "up to",
    "no more than",
    "no less than",
    "no fewer than",
    "not more than",
    "not less than",
    "fewer than",
    "less than",
    "more than",
    "greater than",
    "lower than",
    "higher than",
    "under",
    "over",
    "below",
    "above",
    "within",
    "about",
    "around",
    "approximately",
    "roughly",
    "nearly",
    "almost",
    "<",
    ">",
    "<=",
    ">=",
    "≤",
    "≥",
    "~",
    "≈",
];

/// Phrases that bound the figure before them ("4 or more").
const BOUNDS_AFTER: &[&str] = &[
    "or more", "or less", "or fewer", "or so", "or above", "or below",
];

/// CJK phrases that bound the figure right after them ("至多4").
const CJK_BOUNDS_BEFORE: &[&str] = &[
    "至多",
    "至少",
    "最多",
    "最少",
    "不超过",
    "不少于",
    "不低于",
    "低于",
    "高于",
    "约",
];

/// The bounds put on a figure: a phrase before a number ("at most 4", "under 200", "≤ 4") or
/// after one ("4 or more"), and their CJK forms ("至多4"). Each as its phrase, once per use.
fn bounds(text: &str) -> Vec<&'static str> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match bound_at(&tokens, i) {
            Some(phrase) => {
                found.push(phrase);
                i += phrase.split(' ').count();
            }
            None => i += 1,
        }
    }
    for phrase in CJK_BOUNDS_BEFORE {
        found.extend(
            text.match_indices(phrase)
                .filter(|(at, p)| text[at + p.len()..].starts_with(|c: char| c.is_ascii_digit()))
                .map(|_| *phrase),
        );
    }
    found
}

/// The bound phrase that starts at token `i`: the longest of [`BOUNDS_BEFORE`] followed by a
/// figure (a match's words are not read again: "no more than" is not also "more than"), else
/// one of [`BOUNDS_AFTER`] following a figure.
fn bound_at(tokens: &[String], i: usize) -> Option<&'static str> {
    let before = BOUNDS_BEFORE
        .iter()
        .copied()
        .filter(|p| phrase_at(tokens, i, p))
        .max_by_key(|p| p.len())
        .filter(|p| {
            tokens
                .get(i + p.split(' ').count())
                .is_some_and(|t| is_figure(t))
        });
    let after = BOUNDS_AFTER
        .iter()
        .copied()
        .find(|p| i > 0 && is_figure(&tokens[i - 1]) && phrase_at(tokens, i, p));
    before.or(after)
}

/// Whether the tokens from `i` on start with a phrase's words.
fn phrase_at(tokens: &[String], i: usize, phrase: &str) -> bool {
    let words: Vec<&str> = phrase.split(' ').collect();
    tokens.len() >= i + words.len()
        && tokens[i..i + words.len()]
            .iter()
            .zip(&words)
            .all(|(t, w)| t == w)
}

/// Words that offer another way to meet a requirement, once per use.
fn alternatives(text: &str) -> Vec<&'static str> {
    const LATIN: &[&str] = &[
        "or",
        "unless",
        "except",
        "either",
        "otherwise",
        "alternatively",
    ];
    const CJK: &[&str] = &["或者", "或", "除非", "除了", "否则"];
    let tokens = tokens(text);
    let mut found: Vec<&'static str> = tokens
        .iter()
        .filter_map(|t| LATIN.iter().copied().find(|w| w == t))
        .collect();
    // "或者" holds "或": count the longer word only.
    let mut rest = text.to_string();
    for word in CJK {
        found.extend(rest.matches(word).map(|_| *word));
        rest = rest.replace(word, " ");
    }
    found
}

pub fn similarity(a: &str, b: &str) -> f32 {
    TextDiff::from_chars(a.to_lowercase().as_str(), b.to_lowercase().as_str()).ratio()
}

fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain([' ']) {
        if c.is_ascii_digit() || (c == '.' && !current.is_empty()) {
            current.push(c);
        } else if !current.is_empty() {
            out.push(current.trim_end_matches('.').to_string());
            current.clear();
        }
    }
    out
}

const FILLER: &[&str] = &[
    "and", "or", "the", "a", "an", "both", "also", "&", "with", "all",
];

fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.as_str()))
        .collect()
}

/// One material change between two lists of criteria.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialChange {
    /// The old criterion's 1-based number and text.
    pub number: usize,
    pub text: String,
    /// The new text it became (the closest one), or None when it was removed.
    pub new: Option<String>,
    pub reason: String,
}

/// Why a pin change from `old` to `new` (same requirement text) is material, or None: changing
/// or removing a pin lowers the bar the person agreed to; adding a verify pin raises it. Turning
/// an acceptance pin into a guard or back is material, and so is adding a guard pin to an
/// unpinned criterion: a guard need not be seen failing first, so it asks less.
fn pin_change(old: &str, new: &str) -> Option<String> {
    let Some(before) = pin::parse(old) else {
        return match pin::parse(new) {
            Some(Ok(p)) if p.kind == pin::Kind::Guard => Some(format!(
                "adds the guard pin `{}` (a guard need not fail before the change)",
                p.command
            )),
            _ => None,
        };
    };
    let (kind, before) = before.map_or((None, Vec::new()), |p| (Some(p.kind), p.argv));
    match pin::parse(new) {
        None => Some(format!("removes the pin `{}`", pin::render(&before))),
        Some(Ok(p)) if kind.is_some_and(|k| k != p.kind) => Some(format!(
            "turns the {} pin `{}` into a {} pin `{}`",
            kind.map_or("", pin::Kind::as_str),
            pin::render(&before),
            p.kind.as_str(),
            pin::render(&p.argv)
        )),
        Some(Ok(p)) if p.argv == before => None,
        Some(Ok(p)) => Some(format!(
            "changes the pin from `{}` to `{}`",
            pin::render(&before),
            pin::render(&p.argv)
        )),
        Some(Err(_)) => Some(format!("breaks the pin `{}`", pin::render(&before))),
    }
}

/// The material changes from `old` to `new` criteria lists: every old criterion must still be
/// there, or be covered by a safe edit (one similar text) or a safe split (several new texts);
/// a criterion whose requirement stays but whose pin changes or goes is material too.
pub fn compare(old: &[String], new: &[String]) -> Vec<MaterialChange> {
    let mut changes = Vec::new();
    let mut unpaired = pair_same_requirements(old, new, &mut changes);
    for (number, text) in unpaired.old {
        changes.extend(unpaired_change(number, text, &mut unpaired.new));
    }
    changes.sort_by_key(|c| c.number);
    changes
}

/// The criteria [`pair_same_requirements`] leaves unpaired: old ones as (1-based number, text),
/// new texts in their order.
struct Unpaired<'a> {
    old: Vec<(usize, &'a String)>,
    new: Vec<&'a str>,
}

/// Pairs each old criterion with a new one of the same requirement text (without the pin), as a
/// multiset (lists can hold 100,000 criteria), pushing the pairs' material pin changes.
fn pair_same_requirements<'a>(
    old: &'a [String],
    new: &'a [String],
    changes: &mut Vec<MaterialChange>,
) -> Unpaired<'a> {
    let mut by_base: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (j, n) in new.iter().enumerate().rev() {
        by_base.entry(pin::base(n)).or_default().push(j);
    }
    let mut used = vec![false; new.len()];
    let mut pending = Vec::new();
    for (i, text) in old.iter().enumerate() {
        match by_base.get_mut(pin::base(text)).and_then(Vec::pop) {
            Some(j) => {
                used[j] = true;
                if let Some(reason) = pin_change(text, &new[j]) {
                    changes.push(MaterialChange {
                        number: i + 1,
                        text: text.clone(),
                        new: Some(new[j].clone()),
                        reason,
                    });
                }
            }
            None => pending.push((i + 1, text)),
        }
    }
    let unmatched_new: Vec<&str> = new
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(n, _)| n.as_str())
        .collect();
    Unpaired {
        old: pending,
        new: unmatched_new,
    }
}

/// What became of an old criterion no new one repeats, taking the new texts that cover it out of
/// `unmatched_new`: a safe edit of the most similar text (a typo fix, material only by its pin
/// change), a safe split over the texts sharing its words (None), or else a material change
/// against the most similar text, or its removal.
fn unpaired_change(
    number: usize,
    text: &str,
    unmatched_new: &mut Vec<&str>,
) -> Option<MaterialChange> {
    let best = unmatched_new
        .iter()
        .enumerate()
        .map(|(k, n)| (k, similarity(pin::base(text), pin::base(n))))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((k, _)) = best {
        let candidate = unmatched_new[k];
        if rewording(pin::base(text), &[pin::base(candidate)]).is_none() {
            unmatched_new.remove(k);
            return pin_change(text, candidate).map(|reason| MaterialChange {
                number,
                text: text.to_string(),
                new: Some(candidate.to_string()),
                reason,
            });
        }
    }
    if split_covers(text, unmatched_new) {
        return None;
    }
    let (new, reason) = match best {
        None => (None, "removed".to_string()),
        Some((k, _)) => (
            Some(unmatched_new[k].to_string()),
            rewording(pin::base(text), &[pin::base(unmatched_new[k])])
                .unwrap_or_else(|| "removed".into()),
        ),
    };
    Some(MaterialChange {
        number,
        text: text.to_string(),
        new,
        reason,
    })
}

/// Whether the new texts sharing a word with an old criterion, two or more, split it safely
/// (together they still say all it said); if so they are taken out of `unmatched_new`.
fn split_covers(text: &str, unmatched_new: &mut Vec<&str>) -> bool {
    let candidates: Vec<&str> = unmatched_new
        .iter()
        .copied()
        .filter(|n| !words(n).is_disjoint(&words(text)))
        .collect();
    let bases: Vec<&str> = candidates.iter().map(|c| pin::base(c)).collect();
    if candidates.len() > 1 && rewording(pin::base(text), &bases).is_none() {
        unmatched_new.retain(|n| !candidates.contains(n));
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_rewordings() {
        let cases: &[(&str, &str, bool)] = &[
            (
                "Excess requests return 429",
                "Excess requests retrun 429",
                false,
            ),
            (
                "Excess requests return 429",
                "Excess requests return 4xx",
                true,
            ),
            ("p99 latency under 200 ms", "p99 latency under 500 ms", true),
            ("cargo test passes", "cargo test passes on CI", false),
            (
                "All API routes require auth",
                "The README mentions auth",
                true,
            ),
            (
                "Related files lint clean, typecheck passes",
                "Related files lint clean",
                true,
            ),
            (
                "login rejects wrong passwords with 401",
                "login does not reject wrong passwords with 401",
                true,
            ),
            ("登录拒绝错误密码", "登录不拒绝错误密码", true),
            ("no request is lost", "no request is lost on restart", false),
            // An alternative, or an exact figure made a bound, lowers the bar.
            (
                "add(2, 2) returns 4",
                "add(2, 2) returns 4, or raises",
                true,
            ),
            (
                "search returns 4 results",
                "search returns 4 results unless empty",
                true,
            ),
            (
                "all files parse",
                "all files parse except vendored ones",
                true,
            ),
            (
                "the build passes",
                "either the build passes or the lint does",
                true,
            ),
            ("returns JSON or YAML", "returns JSON or YAML files", false),
            ("returns 4 results", "returns at most 4 results", true),
            ("returns 4 results", "returns 4 or more results", true),
            ("returns 4 results", "returns ≤ 4 results", true),
            ("returns 4 results", "returns <=4 results", true),
            ("latency 200 ms", "latency under 200 ms", true),
            ("p99 under 200 ms", "p99 latency under 200 ms", false),
            ("返回4个结果", "返回至多4个结果", true),
            ("解析所有文件", "解析所有文件或者跳过", true),
            // A word of the same spelling that bounds no figure is not a bound.
            (
                "the menu shows items",
                "the menu shows items over the fold",
                false,
            ),
        ];
        for (old, new, material) in cases {
            assert_eq!(
                rewording(old, &[new]).is_some(),
                *material,
                "{old} -> {new}"
            );
        }
    }

    #[test]
    fn list_comparisons() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cases: &[(&[&str], &[&str], &[usize])] = &[
            (
                &["a passes", "b returns 429"],
                &["a passes", "b returns 429"],
                &[],
            ),
            (
                &["a passes", "b returns 429"],
                &["b returns 429", "a passes"],
                &[],
            ),
            (&["a passes", "b returns 429"], &["a passes"], &[2]),
            (
                &["lint clean and typecheck passes"],
                &["lint clean", "typecheck passes"],
                &[],
            ),
            (
                &["lint clean and typecheck passes"],
                &["lint clean", "docs build"],
                &[1],
            ),
            (
                &["tests pass", "latency under 200 ms"],
                &["tests pass", "latency under 900 ms"],
                &[2],
            ),
            (&["tests pass"], &["tests pass", "new one"], &[]),
            // Pins: adding one is safe; changing or removing one is material.
            (
                &["x returns 429"],
                &["x returns 429 (verify: `cargo test x`)"],
                &[],
            ),
            (
                &["x returns 429 (verify: `cargo test x`)"],
                &["x returns 429 (verify: `cargo test`)"],
                &[1],
            ),
            (
                &["x returns 429 (verify: `cargo test x`)"],
                &["x returns 429"],
                &[1],
            ),
            (
                &["x returns 429 (verify: `cargo test x`)"],
                &["x retruns 429 (verify: `cargo test x`)"],
                &[],
            ),
            (
                &["x returns 429 (verify: `cargo test x`)"],
                &["x retruns 429 (verify: `true`)"],
                &[1],
            ),
            (
                &["a (verify: `t a`)", "b (verify: `t b`)"],
                &["b (verify: `t b`)", "a (verify: `t a`)"],
                &[],
            ),
            // Kinds: a guard pin on an unpinned criterion, or a switch of kind, is material.
            (
                &["lint clean"],
                &["lint clean (guard: `ruff check .`)"],
                &[1],
            ),
            (
                &["x returns 429 (verify: `cargo test x`)"],
                &["x returns 429 (guard: `cargo test x`)"],
                &[1],
            ),
            (
                &["lint clean (guard: `ruff check .`)"],
                &["lint clean (verify: `ruff check .`)"],
                &[1],
            ),
            (
                &["lint clean (guard: `ruff check .`)"],
                &["lint clean (guard: `ruff check .`)", "new"],
                &[],
            ),
        ];
        for (old, new, material) in cases {
            let got: Vec<usize> = compare(&s(old), &s(new)).iter().map(|c| c.number).collect();
            assert_eq!(got, *material, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn reasons_say_what_was_lowered() {
        // (old, new parts) → the reason, or None when the change is safe.
        let table: &[(&str, &[&str], Option<&str>)] = &[
            (
                "p99 under 200 ms",
                &["p99 under 500 ms"],
                Some("drops the number 200"),
            ),
            ("1.5 s and 2 s", &["2 s"], Some("drops the number 1.5")),
            // (One word left out: the words of this reason come from a set, in no fixed order.)
            (
                "lint clean and typecheck passes",
                &["lint clean", "typecheck"],
                Some("the split parts leave out \"passes\""),
            ),
            (
                "lint clean and typecheck passes",
                &["lint clean", "typecheck passes"],
                None,
            ),
            (
                "Related files lint clean, typecheck passes",
                &["Related files lint clean"],
                Some("drops \"passes typecheck\""),
            ),
            // One word gone, the rest much the same: a typo-level edit.
            ("cargo test passes", &["cargo tests passes"], None),
            // Every word kept, yet a different requirement: the similarity decides.
            (
                "auth required",
                &["the README file mentions that auth is required"],
                Some("rewords it into a different requirement (similarity SIM < 0.6)"),
            ),
            ("AUTH REQUIRED", &["auth required"], None),
            (
                "add(2, 2) returns 4",
                &["add(2, 2) returns 4, or raises"],
                Some("adds the alternative \"or\""),
            ),
            (
                "returns 4 results",
                &["returns at most 4 results"],
                Some("turns an exact figure into a bound (\"at most\")"),
            ),
            (
                "returns 4 results",
                &["returns no more than 4 results"],
                Some("turns an exact figure into a bound (\"no more than\")"),
            ),
            // At exactly the minimum ratio (0.6) the rewording still counts as the same.
            ("abcde", &["abcxy"], None),
        ];
        for (old, new, want) in table {
            let joined = new.join(" ");
            let want = want.map(|w| w.replace("SIM", &format!("{:.2}", similarity(old, &joined))));
            assert_eq!(rewording(old, new), want, "{old} -> {new:?}");
        }
    }

    #[test]
    fn similarity_is_a_case_blind_character_ratio() {
        assert_eq!(similarity("Auth Required", "auth required"), 1.0);
        assert_eq!(similarity("abcd", "wxyz"), 0.0);
        assert_eq!(similarity("abcd", "abxy"), 0.5);
        assert_eq!(similarity("abcde", "abcxy"), MIN_RATIO);
        let s = similarity(
            "auth required",
            "the README file mentions that auth is required",
        );
        assert!(s > 0.0 && s < MIN_RATIO, "{s}");
    }
}

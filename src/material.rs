//! Is a change of criteria material (a lowered bar) or safe (a typo, a split)? Pure rules.

use std::collections::HashSet;

use similar::TextDiff;

/// Below this similarity ratio a rewording is a different requirement.
pub const MIN_RATIO: f32 = 0.6;

/// Why a change of one criterion is material, or None when it is safe.
pub fn rewording(old: &str, new: &[&str]) -> Option<String> {
    let joined = new.join(" ");
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
    pub reason: String,
}

/// The material changes from `old` to `new` criteria lists: every old criterion must still be
/// there, or be covered by a safe edit (one similar text) or a safe split (several new texts).
pub fn compare(old: &[String], new: &[String]) -> Vec<MaterialChange> {
    // Exact matches first, as a multiset (lists can hold 100,000 criteria).
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for n in new {
        *counts.entry(n.as_str()).or_default() += 1;
    }
    let mut pending = Vec::new();
    for (i, text) in old.iter().enumerate() {
        match counts.get_mut(text.as_str()) {
            Some(c) if *c > 0 => *c -= 1,
            _ => pending.push((i + 1, text)),
        }
    }
    let mut unmatched_new: Vec<&str> = Vec::new();
    for n in new {
        if let Some(c) = counts.get_mut(n.as_str())
            && *c > 0
        {
            *c -= 1;
            unmatched_new.push(n);
        }
    }
    let mut changes = Vec::new();
    for (number, text) in pending {
        // Best single match first (a typo fix), then the remaining new texts as a split.
        let best = unmatched_new
            .iter()
            .enumerate()
            .map(|(k, n)| (k, similarity(text, n)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((k, _)) = best
            && rewording(text, &[unmatched_new[k]]).is_none()
        {
            unmatched_new.remove(k);
            continue;
        }
        let candidates: Vec<&str> = unmatched_new
            .iter()
            .copied()
            .filter(|n| !words(n).is_disjoint(&words(text)))
            .collect();
        if candidates.len() > 1 && rewording(text, &candidates).is_none() {
            unmatched_new.retain(|n| !candidates.contains(n));
            continue;
        }
        let reason = match best {
            None => "removed".to_string(),
            Some((k, _)) => {
                rewording(text, &[unmatched_new[k]]).unwrap_or_else(|| "removed".into())
            }
        };
        changes.push(MaterialChange {
            number,
            text: text.clone(),
            reason,
        });
    }
    changes
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
        ];
        for (old, new, material) in cases {
            let got: Vec<usize> = compare(&s(old), &s(new)).iter().map(|c| c.number).collect();
            assert_eq!(got, *material, "{old:?} -> {new:?}");
        }
    }
}

//! Goal-setting detection in a user message: trigger phrases, mechanical anti-triggers, abandon
//! phrases and granularity. Pure: text in, a verdict out.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// The seed's trigger phrases, (phrase, lang). Matched case-insensitively.
pub const TRIGGERS: &[(&str, &str)] = &[
    ("设定当前目标为", "zh"),
    ("把当前目标设为", "zh"),
    ("当前目标是", "zh"),
    ("我的目标是", "zh"),
    ("set current goal to", "en"),
    ("set the current goal to", "en"),
    ("current goal is", "en"),
    ("my goal is", "en"),
    ("the goal is", "en"),
];

/// Abandon phrases (whole words for English).
pub const ABANDON: &[(&str, &str)] = &[
    ("abandon", "en"),
    ("cancel", "en"),
    ("不要了", "zh"),
    ("放弃", "zh"),
];

/// Words around an abandon phrase that change nothing: politeness, assent, fillers. A message of
/// an abandon phrase and these alone ("ok, cancel it please") is aimed at the goal.
pub const ABANDON_FILLER_EN: &[&str] = &[
    "please", "pls", "ok", "okay", "alright", "all", "right", "just", "now", "then", "so", "yes",
    "yeah", "yep", "sure", "fine", "well", "hmm", "thanks", "thank", "you", "go", "ahead", "and",
    "let's", "lets", "let", "us", "i", "we", "want", "to", "would", "like", "i'd", "we'd", "can",
    "could", "kindly", "actually", "really", "anyway", "for", "it", "this", "that", "whole",
    "thing",
];

/// Chinese fillers, removed from what surrounds an abandon phrase before judging it.
pub const ABANDON_FILLER_ZH: &[&str] = &[
    "算了", "好吧", "好的", "那就", "还是", "直接", "现在", "我们", "好", "嗯", "那", "就", "请",
    "吧", "了", "啊", "呀", "哦", "我", "先", "掉",
];

/// Negations before an abandon phrase: "don't cancel", "we should not abandon …", "不要放弃".
pub const ABANDON_NEGATION_EN: &[&str] = &[
    "not",
    "no",
    "never",
    "don't",
    "dont",
    "cannot",
    "can't",
    "won't",
    "shouldn't",
    "mustn't",
    "didn't",
    "doesn't",
    "wouldn't",
    "couldn't",
    "without",
    "stop",
];
pub const ABANDON_NEGATION_ZH: &[char] = &['不', '别', '没', '勿', '未'];

/// Words that may stand before "goal" in the object of an abandon phrase ("the current goal").
pub const GOAL_DETERMINERS: &[&str] = &[
    "the", "this", "that", "my", "our", "your", "current", "active", "whole", "entire", "present",
];

/// Pronouns that make the goal the object: "cancel it", "放弃它".
pub const GOAL_PRONOUNS_EN: &[&str] = &["it", "this", "that", "everything"];
pub const GOAL_PRONOUNS_ZH: &[&str] = &["它", "这个", "那个", "这", "一切"];

/// Reported-speech markers: a phrase in the same sentence is somebody else's goal.
pub const REPORTED: &[&str] = &["he said", "she said", "they said", "他说", "她说", "他们说"];

/// Trivial-task keywords: the message is not worth a goal loop.
pub const TRIVIAL: &[&str] = &[
    "hotfix",
    "tweak",
    "fix a bug",
    "small change",
    "quick fix",
    "修个bug",
    "小改",
];

/// Keywords that make even a short goal worth a loop.
pub const ARCHITECTURAL_SHORT: &[&str] = &[
    "architecture",
    "module",
    "system",
    "refactor",
    "integration",
    "架构",
    "模块",
    "系统",
    "重构",
    "集成",
];

/// Granularity: words that ask for architectural design.
pub const ARCHITECTURAL: &[&str] = &[
    "architecture",
    "architectural",
    "redesign",
    "re-architect",
    "rewrite",
    "migrate",
    "migration",
    "design the",
    "design a",
    "from scratch",
    "microservice",
    "microservices",
    "架构",
    "重新设计",
    "重写",
    "迁移",
];

/// Granularity: words that say the work spans modules.
pub const CROSS_MODULE: &[&str] = &[
    "across modules",
    "across the codebase",
    "across services",
    "multiple modules",
    "multiple services",
    "several modules",
    "every module",
    "all modules",
    "frontend and backend",
    "backend and frontend",
    "end-to-end",
    "cross-module",
    "跨模块",
    "多个模块",
    "所有模块",
    "前后端",
];

/// Why a phrase did not trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    Quote,
    Code,
    ReportedSpeech,
    Trivial,
    TooShort,
    Empty,
    /// The message is an agent's slash command (`/goal abandon the goal`), not a message.
    SlashCommand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Goal,
    Abandon,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Fine,
    Coarse,
}

/// What made the granularity what it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    /// File paths the goal names.
    pub files: Vec<String>,
    pub cross_module: Vec<String>,
    pub architectural: Vec<String>,
}

/// The verdict on one message (the JSON of `goal detect --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detection {
    pub trigger: bool,
    pub kind: Kind,
    pub goal: Option<String>,
    pub lang: &'static str,
    pub rejected: Option<Rejection>,
    pub granularity: Granularity,
    pub signals: Signals,
    /// The phrase that matched, if any.
    pub phrase: Option<String>,
}

/// Byte ranges of block quotes, code blocks and inline code, found by a markdown parser.
fn quoted_ranges(text: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let mut quotes = Vec::new();
    let mut code = Vec::new();
    let mut quote_start: Vec<usize> = Vec::new();
    let mut code_start = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_)) => quote_start.push(range.start),
            Event::End(TagEnd::BlockQuote(_)) => {
                if let Some(start) = quote_start.pop() {
                    quotes.push(start..range.end);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => code_start = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(start) = code_start.take() {
                    code.push(start..range.end);
                }
            }
            Event::Code(_) => code.push(range),
            _ => {}
        }
    }
    (quotes, code)
}

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0xff00..=0xffef)
}

/// Byte offsets of `needle` in `haystack` (both lower-cased already); whole words for ASCII needles.
fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    haystack
        .match_indices(needle)
        .filter(|(at, _)| {
            if !needle.is_ascii() {
                return true;
            }
            let before = haystack[..*at].chars().next_back();
            let after = haystack[at + needle.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
        .map(|(at, _)| at)
        .collect()
}

/// The sentence around byte `at`: from the last sentence end before it to the next one after.
fn sentence_around(text: &str, at: usize) -> Range<usize> {
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？' | ';' | '；');
    let start = text[..at].rfind(ends).map_or(0, |i| {
        i + text[i..].chars().next().map_or(1, char::len_utf8)
    });
    let end = text[at..].find(ends).map_or(text.len(), |i| at + i);
    start..end
}

/// The clause around a phrase at `at..at + len`: the text before it and after it, up to the
/// nearest punctuation or line break.
fn clause_around(text: &str, at: usize, len: usize) -> (&str, &str) {
    let ends = |c: char| {
        matches!(
            c,
            '.' | '!'
                | '?'
                | '\n'
                | ','
                | ';'
                | ':'
                | '。'
                | '！'
                | '？'
                | '，'
                | '；'
                | '：'
                | '、'
        )
    };
    let before = &text[..at];
    let before = before.rfind(ends).map_or(before, |i| {
        &before[i + before[i..].chars().next().map_or(1, char::len_utf8)..]
    });
    let after = &text[at + len..];
    let after = after.find(ends).map_or(after, |i| &after[..i]);
    (before, after)
}

/// The English words of a text (lower case; `’` read as `'`).
fn words(text: &str) -> Vec<String> {
    text.replace('’', "'")
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The CJK text of `text` with its Chinese fillers removed.
fn chinese_core(text: &str) -> String {
    let mut core: String = text
        .chars()
        .filter(|&c| is_cjk(c) && !matches!(c, '\u{ff00}'..='\u{ff20}'))
        .collect();
    for filler in ABANDON_FILLER_ZH {
        core = core.replace(filler, "");
    }
    core
}

/// Nothing but fillers, politeness and punctuation.
fn only_filler(text: &str) -> bool {
    words(text)
        .iter()
        .all(|w| ABANDON_FILLER_EN.contains(&w.as_str()))
        && chinese_core(text).is_empty()
}

/// A negation in the clause before a phrase.
fn negated(before: &str) -> bool {
    words(before)
        .iter()
        .any(|w| ABANDON_NEGATION_EN.contains(&w.as_str()) || w.ends_with("n't"))
        || before.contains(ABANDON_NEGATION_ZH)
}

/// Whether English words name the goal: "[the|this|current…] goal …", or a pronoun alone.
fn names_goal_en(object: &[String]) -> bool {
    let object: Vec<&str> = object
        .iter()
        .map(String::as_str)
        .skip_while(|w| matches!(*w, "please" | "now" | "off"))
        .collect();
    if let Some((first, rest)) = object.split_first()
        && GOAL_PRONOUNS_EN.contains(first)
        && rest.iter().all(|w| ABANDON_FILLER_EN.contains(w))
    {
        return true;
    }
    let determiners = object
        .iter()
        .take_while(|w| GOAL_DETERMINERS.contains(w))
        .count();
    object
        .get(determiners)
        .is_some_and(|w| matches!(*w, "goal" | "goals"))
}

/// Whether Chinese text names the goal: 目标, or a pronoun alone.
fn names_goal_zh(text: &str) -> bool {
    let core = chinese_core(text);
    core.contains("目标") || GOAL_PRONOUNS_ZH.contains(&core.as_str())
}

/// An abandon phrase abandons only when aimed at the goal: the message is the phrase alone (with
/// politeness and punctuation), or the phrase's object is the goal — and no negation comes first.
fn aimed_at_goal(lower: &str, at: usize, phrase: &str) -> bool {
    let (before, after) = clause_around(lower, at, phrase.len());
    if negated(before) {
        return false;
    }
    let alone = || only_filler(&lower[..at]) && only_filler(&lower[at + phrase.len()..]);
    match phrase {
        // "不要了" has its object before it: "这个目标不要了".
        "不要了" => {
            if chinese_core(before).is_empty() && words(before).is_empty() {
                alone()
            } else {
                names_goal_zh(before)
            }
        }
        "放弃" => {
            if chinese_core(after).is_empty() && words(after).is_empty() {
                alone()
            } else {
                names_goal_zh(after) || names_goal_en(&words(after))
            }
        }
        _ => {
            let object = words(after);
            if object.is_empty() && chinese_core(after).is_empty() {
                alone()
            } else {
                names_goal_en(&object) || names_goal_zh(after)
            }
        }
    }
}

/// The goal text after a phrase: to the end of the paragraph, trimmed of joining words.
fn goal_after(text: &str, from: usize) -> String {
    let rest = &text[from..];
    let rest = rest.split("\n\n").next().unwrap_or(rest);
    let mut goal = rest
        .trim_start_matches([' ', '\t', ':', '：', ',', '，', '"', '“', '「'])
        .trim();
    for lead in ["to ", "that "] {
        if goal
            .get(..lead.len())
            .is_some_and(|g| g.eq_ignore_ascii_case(lead))
        {
            goal = goal[lead.len()..].trim_start();
        }
    }
    goal.trim_end_matches(['.', '。', '!', '！', '"', '”', '」', ' '])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// File paths named in a goal: tokens like `src/lib.rs`, `README.md`.
fn files_named(goal: &str) -> Vec<String> {
    let mut files: Vec<String> = goal
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '`' | '"' | '\'' | '，')
        })
        .map(|t| t.trim_end_matches(['.', ':', '!', '?']))
        .filter(|t| {
            let dotted = t.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
            });
            dotted || (t.contains('/') && t.len() > 2 && !t.starts_with("http"))
        })
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    files
}

fn granularity(goal: &str) -> (Granularity, Signals) {
    let lower = goal.to_ascii_lowercase();
    let hits = |words: &[&str]| -> Vec<String> {
        words
            .iter()
            .filter(|w| !find_all(&lower, w).is_empty())
            .map(|w| w.to_string())
            .collect()
    };
    let signals = Signals {
        files: files_named(goal),
        cross_module: hits(CROSS_MODULE),
        architectural: hits(ARCHITECTURAL),
    };
    let coarse = signals.files.len() > 5
        || !signals.cross_module.is_empty()
        || !signals.architectural.is_empty();
    (
        if coarse {
            Granularity::Coarse
        } else {
            Granularity::Fine
        },
        signals,
    )
}

/// Whether a prompt is an agent's slash command (`/name` or `/name arguments`, as Claude Code
/// and Pi take them): such a prompt is an instruction to the agent's own tooling — `/goal abandon
/// the goal` sets Claude Code's goal condition — and never a goal-setting or abandon message.
/// A path (`/usr/bin …`) is not a command: the name ends at whitespace or the end of the prompt.
pub fn is_slash_command(prompt: &str) -> bool {
    let Some(rest) = prompt.trim_start().strip_prefix('/') else {
        return false;
    };
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')))
        .unwrap_or(rest.len());
    let after = &rest[name_len..];
    name_len > 0
        && rest.starts_with(|c: char| c.is_ascii_alphanumeric())
        && after.chars().next().is_none_or(char::is_whitespace)
}

/// A message as phrases are looked for in it: ASCII-lowercased (case folding that keeps byte
/// offsets, so phrase positions index the original text too), with its quoted and code spans.
struct Message {
    lower: String,
    quotes: Vec<Range<usize>>,
    code: Vec<Range<usize>>,
}

impl Message {
    fn new(message: &str) -> Message {
        let lower = message.to_ascii_lowercase();
        let (quotes, code) = quoted_ranges(message);
        Message {
            lower,
            quotes,
            code,
        }
    }

    /// Why a phrase at byte `at` is not the user's own: it is in code, in a quote, or in a
    /// sentence of reported speech ("he said …"); None when it is.
    fn rejection_at(&self, at: usize) -> Option<Rejection> {
        let inside = |ranges: &[Range<usize>]| ranges.iter().any(|r| r.contains(&at));
        if inside(&self.code) {
            Some(Rejection::Code)
        } else if inside(&self.quotes) {
            Some(Rejection::Quote)
        } else {
            let s = &self.lower[sentence_around(&self.lower, at)];
            REPORTED
                .iter()
                .any(|m| !find_all(s, m).is_empty())
                .then_some(Rejection::ReportedSpeech)
        }
    }
}

/// Judge one message.
pub fn detect(message: &str) -> Detection {
    let text = Message::new(message);
    let fallback_lang = if message.chars().any(is_cjk) {
        "zh"
    } else {
        "en"
    };
    let mut verdict = Detection {
        trigger: false,
        kind: Kind::None,
        goal: None,
        lang: fallback_lang,
        rejected: None,
        granularity: Granularity::Fine,
        signals: Signals::default(),
        phrase: None,
    };
    if message.trim().is_empty() {
        verdict.rejected = Some(Rejection::Empty);
        return verdict;
    }
    if is_slash_command(message) {
        verdict.rejected = Some(Rejection::SlashCommand);
        return verdict;
    }
    let mut first_rejection = None;
    for (at, phrase, lang) in trigger_phrases(&text.lower) {
        let rejection = text.rejection_at(at);
        let goal = goal_after(message, at + phrase.len());
        if let Some(r) = rejection {
            first_rejection.get_or_insert((r, goal, phrase, lang));
            continue;
        }
        goal_set(&mut verdict, &text.lower, goal, phrase, lang);
        return verdict;
    }
    // No goal phrase triggered: an abandon phrase may.
    if let Some((phrase, lang)) = abandon_phrase(&text) {
        verdict.trigger = true;
        verdict.kind = Kind::Abandon;
        verdict.lang = lang;
        verdict.phrase = Some(phrase.to_string());
        return verdict;
    }
    if let Some((rejection, goal, phrase, lang)) = first_rejection {
        verdict.rejected = Some(rejection);
        verdict.goal = (!goal.is_empty()).then_some(goal);
        verdict.phrase = Some(phrase.to_string());
        verdict.lang = lang;
    }
    verdict
}

/// The trigger phrases in a lowercased message as (byte offset, phrase, lang), in order; of
/// phrases that overlap, the first and, at the same place, the longest ("set the current goal
/// to" over "current goal is").
fn trigger_phrases(lower: &str) -> Vec<(usize, &'static str, &'static str)> {
    let mut phrases: Vec<(usize, &str, &str)> = TRIGGERS
        .iter()
        .flat_map(|(p, lang)| {
            find_all(lower, p)
                .into_iter()
                .map(move |at| (at, *p, *lang))
        })
        .collect();
    phrases.sort();
    phrases.dedup_by(|b, a| b.0 < a.0 + a.1.len() && b.0 >= a.0);
    phrases
}

/// The verdict of a goal phrase the user said: its goal, language and granularity, and the goal
/// set (a trigger) unless it is empty, the message names a trivial task, or it is too short.
fn goal_set(verdict: &mut Detection, lower: &str, goal: String, phrase: &str, lang: &'static str) {
    verdict.lang = lang;
    verdict.phrase = Some(phrase.to_string());
    let (granularity, signals) = granularity(&goal);
    verdict.granularity = granularity;
    verdict.signals = signals;
    verdict.rejected = goal_rejection(lower, &goal);
    verdict.goal = (!goal.is_empty()).then_some(goal);
    if verdict.rejected.is_none() {
        verdict.trigger = true;
        verdict.kind = Kind::Goal;
    }
}

/// Why a goal after a phrase is refused: it is empty, the message names a trivial task, or the
/// goal is at most 10 characters without an architectural word; None when it is a goal.
fn goal_rejection(lower: &str, goal: &str) -> Option<Rejection> {
    let trivial = TRIVIAL.iter().any(|w| !find_all(lower, w).is_empty());
    let short = goal.chars().count() <= 10
        && !ARCHITECTURAL_SHORT
            .iter()
            .any(|w| goal.to_lowercase().contains(w));
    if goal.is_empty() {
        Some(Rejection::Empty)
    } else if trivial {
        Some(Rejection::Trivial)
    } else if short {
        Some(Rejection::TooShort)
    } else {
        None
    }
}

/// The first abandon phrase, as (phrase, lang), that the user says (not in code, a quote or
/// reported speech) aimed at the goal.
fn abandon_phrase(text: &Message) -> Option<(&'static str, &'static str)> {
    for (phrase, lang) in ABANDON {
        for at in find_all(&text.lower, phrase) {
            if text.rejection_at(at).is_none() && aimed_at_goal(&text.lower, at, phrase) {
                return Some((phrase, lang));
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;

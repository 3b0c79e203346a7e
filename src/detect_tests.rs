//! Tests of goal-setting detection: the table of messages and their verdicts, one line each.

use super::*;

/// (message, trigger, kind, rejected, granularity, goal text when it matters)
type Case = (
    &'static str,
    bool,
    Kind,
    Option<Rejection>,
    Granularity,
    Option<&'static str>,
);

const G: Kind = Kind::Goal;
const A: Kind = Kind::Abandon;
const N: Kind = Kind::None;
const F: Granularity = Granularity::Fine;
const C: Granularity = Granularity::Coarse;

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    use Rejection::*;
    vec![
        // Each English trigger phrase.
        ("my goal is to make the client cancel slow requests", true, G, None, F, Some("make the client cancel slow requests")),
        ("The goal is: all API handlers return JSON errors", true, G, None, F, Some("all API handlers return JSON errors")),
        ("Set current goal to rate-limit the login endpoint", true, G, None, F, Some("rate-limit the login endpoint")),
        ("set the current goal to ship the CSV exporter", true, G, None, F, Some("ship the CSV exporter")),
        ("Current goal is getting the parser to handle UTF-16 input.", true, G, None, F, Some("getting the parser to handle UTF-16 input")),
        ("MY GOAL IS TO PORT THE CLI TO WINDOWS", true, G, None, F, Some("PORT THE CLI TO WINDOWS")),
        // Each Chinese trigger phrase.
        ("设定当前目标为实现用户登录的限流功能", true, G, None, F, Some("实现用户登录的限流功能")),
        ("当前目标是：让所有接口返回统一的错误格式", true, G, None, F, Some("让所有接口返回统一的错误格式")),
        ("把当前目标设为完成订单导出功能并通过测试", true, G, None, F, Some("完成订单导出功能并通过测试")),
        ("我的目标是让解析器支持 UTF-16 输入", true, G, None, F, Some("让解析器支持 UTF-16 输入")),
        // Mixed language.
        ("我的目标是 make the importer skip malformed rows", true, G, None, F, Some("make the importer skip malformed rows")),
        ("OK. My goal is 让导出器支持分页并且通过所有测试", true, G, None, F, Some("让导出器支持分页并且通过所有测试")),
        ("OK. My goal is 让导出器支持分页", false, N, Some(TooShort), F, None),
        ("Hi team.\n\nMy goal is to add retries to the HTTP client.\n\nThanks!", true, G, None, F, Some("add retries to the HTTP client")),
        // Quotes and code.
        ("> my goal is to rewrite the scheduler", false, N, Some(Quote), F, None),
        ("Someone wrote:\n\n> the goal is to make builds reproducible\n\nthoughts?", false, N, Some(Quote), F, None),
        ("```\nmy goal is to add caching to the API\n```", false, N, Some(Code), F, None),
        ("Run `echo my goal is to win` in the shell", false, N, Some(Code), F, None),
        ("    my goal is to reduce memory use of the indexer", false, N, Some(Code), F, None),
        ("> 我的目标是重写整个系统", false, N, Some(Quote), F, None),
        ("```text\n当前目标是优化数据库查询\n```", false, N, Some(Code), F, None),
        // Reported speech in the same sentence.
        ("He said my goal is to refactor the payment module", false, N, Some(ReportedSpeech), F, None),
        ("they said the goal is to migrate to Postgres, but I disagree", false, N, Some(ReportedSpeech), F, None),
        ("他说我的目标是重构支付模块", false, N, Some(ReportedSpeech), F, None),
        ("She said hello. My goal is to add tracing to the job runner", true, G, None, F, Some("add tracing to the job runner")),
        // A rejected phrase, then a real one: the second still decides (every phrase is tried).
        ("> my goal is to rewrite the scheduler\n\nmy goal is to add retries to the HTTP client", true, G, None, F, Some("add retries to the HTTP client")),
        ("He said my goal is to drop the cache. The goal is to add tracing to the job runner", true, G, None, F, Some("add tracing to the job runner")),
        ("Run `echo my goal is x` first. my goal is to add retries to the HTTP client", true, G, None, F, Some("add retries to the HTTP client")),
        // Overlapping phrases at one place: the longer one is read ("set the current goal to").
        ("set the current goal to add retries to the HTTP client", true, G, None, F, Some("add retries to the HTTP client")),
        // Trivial tasks.
        ("my goal is a quick fix for the typo in the footer", false, N, Some(Trivial), F, None),
        ("the goal is to tweak the button colour on the settings page", false, N, Some(Trivial), F, None),
        ("My goal is to fix a bug in the date picker", false, N, Some(Trivial), F, None),
        ("我的目标是修个bug，登录页面报错", false, N, Some(Trivial), F, None),
        ("当前目标是小改一下首页的文案内容", false, N, Some(Trivial), F, None),
        ("my goal is a hotfix for prod login", false, N, Some(Trivial), F, None),
        // Too short, unless architectural.
        ("my goal is faster", false, N, Some(TooShort), F, None),
        ("我的目标是更快", false, N, Some(TooShort), F, None),
        ("my goal is refactor", true, G, None, F, Some("refactor")),
        ("我的目标是重构模块", true, G, None, F, Some("重构模块")),
        // Empty.
        ("", false, N, Some(Empty), F, None),
        ("   \n ", false, N, Some(Empty), F, None),
        ("my goal is", false, N, Some(Empty), F, None),
        // Abandon: quotes, code and reported speech as for goal phrases.
        ("> abandon", false, N, None, F, None),
        ("Run `cancel` to stop", false, N, None, F, None),
        ("he said cancel it", false, N, None, F, None),
        ("the cancellation flow looks fine", false, N, None, F, None),
        // Coarse versus fine.
        ("my goal is to redesign the architecture of the storage layer", true, G, None, C, None),
        ("my goal is to migrate the app from MySQL to Postgres", true, G, None, C, None),
        ("my goal is to make login work end-to-end across the frontend and backend", true, G, None, C, None),
        ("my goal is to update a.rs, b.rs, c.rs, d.rs, e.rs and f.rs to the new API", true, G, None, C, None),
        ("my goal is to update a.rs and b.rs to the new API", true, G, None, F, None),
        ("我的目标是重新设计整个系统的架构", true, G, None, C, None),
        // Nothing at all.
        ("please look at the failing test", false, N, None, F, None),
        ("what is the goal of this function?", false, N, None, F, None),
    ]
}

/// Abandon phrases aimed at the goal (true) and not (false).
#[rustfmt::skip]
const ABANDON_CASES: &[(&str, bool)] = &[
    // The phrase alone, with politeness and punctuation.
    ("abandon", true),
    ("cancel", true),
    ("Cancel.", true),
    ("please abandon.", true),
    ("ok cancel it", true),
    ("OK, cancel it please!", true),
    ("yes, abandon it", true),
    ("不要了", true),
    ("放弃", true),
    ("放弃吧", true),
    ("算了，不要了", true),
    ("好吧，放弃吧。", true),
    // The goal as the object.
    ("abandon the goal", true),
    ("cancel this goal", true),
    ("Please cancel the current goal.", true),
    ("I want to cancel my goal, it is not worth it", true),
    ("let's abandon the whole goal now", true),
    ("cancel it", true),
    ("放弃这个目标", true),
    ("放弃当前目标", true),
    ("请放弃这个目标吧", true),
    ("这个目标不要了", true),
    ("放弃它", true),
    // Something else as the object.
    ("ok, cancel the build and run the tests again", false),
    ("abandon this approach", false),
    ("abandon this approach and try a queue", false),
    ("cancel the request when it times out", false),
    ("can you cancel the deployment?", false),
    ("abandon ship", false),
    ("放弃这个方案", false),
    ("这个方案不要了", false),
    ("放弃使用正则表达式，改用解析器", false),
    // Negated.
    ("don't cancel", false),
    ("Don’t cancel it", false),
    ("do not abandon it", false),
    ("we should not abandon the goal", false),
    ("never cancel the goal", false),
    ("I can't abandon this goal", false),
    ("不要放弃", false),
    ("别放弃这个目标", false),
    ("我们不能放弃这个目标", false),
    // A phrase among other sentences is not the phrase alone.
    ("the tests are flaky. cancel", false),
    ("tests fail on CI; should I cancel the rerun?", false),
];

#[test]
fn abandon_means_the_goal() {
    for &(message, aimed) in ABANDON_CASES {
        let d = detect(message);
        let want = if aimed { A } else { N };
        assert_eq!((d.trigger, d.kind), (aimed, want), "{message:?} → {d:?}");
    }
}

#[test]
fn detection_table() {
    let cases = cases();
    assert!(cases.len() >= 40);
    for (message, trigger, kind, rejected, granularity, goal) in cases {
        let d = detect(message);
        assert_eq!(
            (d.trigger, d.kind, d.rejected, d.granularity),
            (trigger, kind, rejected, granularity),
            "{message:?} → {d:?}"
        );
        if let Some(goal) = goal {
            assert_eq!(d.goal.as_deref(), Some(goal), "{message:?}");
        }
    }
}

#[test]
fn phrases_are_found_as_whole_words() {
    // (haystack, needle) → byte offsets
    let table: &[(&str, &str, &[usize])] = &[
        ("make it stop", "stop", &[8]),
        ("stop, stop", "stop", &[0, 6]),
        ("nonstop", "stop", &[]),
        ("stops", "stop", &[]),
        ("stop_it", "stop", &[]),
        ("4stop", "stop", &[]),
        // Chinese has no spaces between words: every occurrence counts.
        ("放弃吧放弃", "放弃", &[0, 9]),
    ];
    for (haystack, needle, want) in table {
        assert_eq!(find_all(haystack, needle), *want, "{haystack} / {needle}");
    }
}

#[test]
fn the_sentence_around_a_phrase() {
    // (text, byte offset) → the sentence's byte range
    let table: &[(&str, usize, std::ops::Range<usize>)] = &[
        ("one. two", 6, 4..8),
        ("one. two! three", 1, 0..3),
        ("one. two! three", 11, 9..15),
        // After a 3-byte full stop the sentence starts 3 bytes on.
        ("a。bc", 4, 4..6),
        ("一。二三？四", 6, 6..12),
    ];
    for (text, at, want) in table {
        assert_eq!(sentence_around(text, *at), *want, "{text} @ {at}");
    }
}

#[test]
fn the_clause_around_a_phrase() {
    // (text, phrase) → the clause's text before and after the phrase
    let table: &[(&str, &str, (&str, &str))] = &[
        ("well, I give up now. Next", "give", (" I ", " up now")),
        ("give up", "give", ("", " up")),
        ("好的，放弃吧。", "放弃", ("", "吧")),
        ("嗯、我们放弃这个目标", "放弃", ("我们", "这个目标")),
    ];
    for (text, phrase, want) in table {
        let at = text.find(phrase).unwrap();
        assert_eq!(clause_around(text, at, phrase.len()), *want, "{text}");
    }
}

#[test]
fn files_named_in_a_goal() {
    // (goal, files) — a file has a stem and a 1 to 5 character extension with a letter, or
    // is a path with a slash that is not a URL.
    let table: &[(&str, &[&str])] = &[
        (
            "update src/lib.rs, then README.md.",
            &["README.md", "src/lib.rs"],
        ),
        ("split src/main into modules", &["src/main"]),
        ("load .env first", &[]),
        ("bump to v1.2", &[]),
        ("parse a.b-c", &[]),
        ("see https://example.com/docs", &[]),
        ("a/ b/c", &["b/c"]),
        ("tidy the archive.tar.gz", &["archive.tar.gz"]),
        ("rename notes.markdown", &[]),
    ];
    for (goal, want) in table {
        assert_eq!(files_named(goal), *want, "{goal}");
    }
}

#[test]
fn more_than_five_files_is_coarse() {
    let five = "fix a.rs b.rs c.rs d.rs e.rs";
    assert_eq!(granularity(five).0, Granularity::Fine);
    assert_eq!(granularity(five).1.files.len(), 5);
    assert_eq!(granularity(&format!("{five} f.rs")).0, Granularity::Coarse);
}

#[test]
fn a_rejected_phrase_keeps_the_goal_it_would_have_set() {
    let d = detect("> my goal is to rewrite the scheduler");
    assert_eq!(d.rejected, Some(Rejection::Quote));
    assert_eq!(d.goal.as_deref(), Some("rewrite the scheduler"));
}

/// Slash commands (`/name …`) are never messages: which prompts are one.
#[test]
fn slash_commands_are_told_apart_from_messages() {
    let table = [
        ("/goal abandon the goal", true),
        (
            "/goal my goal is to make add() add; done when the tests pass",
            true,
        ),
        ("  /goal clear", true),
        ("/compact", true),
        (
            "/plugin:command my goal is to add retries to the HTTP client",
            true,
        ),
        ("/review-pr 12\nmy goal is to add retries", true),
        (
            "/usr/bin/env is broken: my goal is to fix the launcher",
            false,
        ),
        ("/ my goal is to add retries to the HTTP client", false),
        ("/-x abandon", false),
        ("my goal is to make /goal work", false),
        ("abandon /goal", false),
        ("", false),
    ];
    for (prompt, slash) in table {
        assert_eq!(is_slash_command(prompt), slash, "{prompt:?}");
        let d = detect(prompt);
        if slash {
            assert_eq!((d.trigger, d.kind), (false, Kind::None), "{prompt:?}");
            assert_eq!(d.rejected, Some(Rejection::SlashCommand), "{prompt:?}");
        }
    }
    // Without the slash, the same words are still a goal and an abandon.
    assert_eq!(
        detect("my goal is to make add() add; done when the tests pass").kind,
        G
    );
    assert_eq!(detect("abandon the goal").kind, A);
    assert_eq!(
        detect("/usr/bin/env is broken: my goal is to fix the launcher").kind,
        G
    );
}

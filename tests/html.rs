//! A picture of a goal: `goal report --html` and `goal fleet --html` write one self-contained page
//! each; the pages are checked as text here and, where Chromium is installed, loaded in a real
//! headless Chromium (no console error, a mark per iteration, a screenshot).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{Repo, assert_refused, commit_all, json, stdout};

/// A goal with a criterion that holds markup, two iterations, the second one proving it.
fn goal_with_history() -> Repo {
    let repo = Repo::new();
    repo.write(
        "t.sh",
        "#!/bin/sh\nif [ -f work.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    commit_all(&repo, "the test");
    repo.ok(&[
        "init",
        "Draw <b>the</b> goal",
        "-c",
        "the page shows <script>alert(1)</script> as text (verify: `sh t.sh`)",
    ]);
    repo.goal().args(["verify", "-c", "1"]).assert().code(1);
    repo.ok(&["iterate", "-m", "wrote the test first"]);
    repo.write("work.txt", "done\n");
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "implemented the work"]);
    repo
}

fn report_page(repo: &Repo) -> String {
    repo.ok(&["report", "--html", "report.html"]);
    repo.read("report.html")
}

fn log_rows(repo: &Repo) -> usize {
    json(&repo.goal().args(["log", "--json"]).output().unwrap())
        .as_array()
        .map_or(0, Vec::len)
}

#[test]
fn the_report_page_is_self_contained_and_escapes_the_goal() {
    let repo = goal_with_history();
    let page = report_page(&repo);
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    ));
    // No script, no link, nothing that loads.
    for tag in [
        "<script", "<link", "<img", "src=", "href=", "@import", "url(",
    ] {
        assert!(!page.contains(tag), "{tag} in the page");
    }
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("Draw &lt;b&gt;the&lt;/b&gt; goal"));
    // A mark per iteration (the goal's log rows: init and two iterations).
    assert_eq!(log_rows(&repo), 3);
    assert_eq!(page.matches("<circle class=\"mark\"").count(), 3);
    // Criterion 1 red at iterations 0 and 1, green at 2.
    assert_eq!(page.matches("criterion 1, iteration 2: proven").count(), 1);
    assert_eq!(page.matches(": not proven</title>").count(), 2);
    // Nothing recorded is said, never drawn.
    assert!(page.contains("Not recorded: no agent reported it"));
    assert!(!page.contains("class=\"bar\""));
    assert!(
        stdout(
            &repo
                .goal()
                .args(["report", "--html", "again.html"])
                .output()
                .unwrap()
        )
        .contains("wrote ")
    );
}

#[test]
fn usage_not_recorded_is_a_dashed_box_and_never_a_bar_of_zero() {
    let repo = goal_with_history();
    // The first iteration's commit as `goal run` makes it: with what its agent used.
    let head = repo.git(&["log", "-1", "--format=%B"]);
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "-m",
        &format!(
            "{}Goal-Usage: input=1000 output=200 cost=0.05\n",
            head.trim_end().to_string() + "\n"
        ),
    ]);
    repo.ok(&["iterate", "-m", "tidied up"]);
    let page = report_page(&repo);
    // Cost and tokens: the amended iteration has a bar in each chart; the others are unrecorded.
    assert_eq!(page.matches("<rect class=\"bar\"").count(), 2, "{page}");
    assert!(page.contains("iteration 2: $0.0500"));
    assert!(page.contains("iteration 2: 1200"));
    assert_eq!(page.matches(": not recorded</title>").count(), 6);
}

#[test]
fn a_goal_with_no_iteration_says_so() {
    let repo = Repo::new();
    repo.ok(&[
        "init",
        "Nothing yet",
        "-c",
        "a test passes (verify: `sh t.sh`)",
    ]);
    let page = report_page(&repo);
    assert!(page.contains("This goal has no iteration yet"), "{page}");
    assert_eq!(page.matches("<circle class=\"mark\"").count(), 0);
}

#[test]
fn the_budget_of_a_run_is_recorded_on_its_first_commit_and_drawn() {
    let repo = goal_with_history();
    let agent = repo.path().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\ncat >/dev/null\necho 'looked around'\n").unwrap();
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--max-iterations", "2", "--", "sh"])
        .arg(&agent)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let budgets: Vec<String> = repo
        .git(&["log", "--format=%(trailers:key=Goal-Budget,valueonly)"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(budgets, ["iterations=2"]);
    let report = json(&repo.goal().args(["--json", "report"]).output().unwrap());
    assert_eq!(report["budget"]["iterations"], 2);
    assert_eq!(report["timeline"].as_array().map(Vec::len), Some(5));
    assert!(report_page(&repo).contains("budget of its run: 2 iterations"));
}

#[test]
fn bad_html_targets_are_refused_and_write_nothing() {
    let repo = goal_with_history();
    let before = repo.status_porcelain();
    let out = repo
        .goal()
        .args(["report", "--html", "no/such/folder/r.html"])
        .output()
        .unwrap();
    assert_refused(
        "report --html into a missing folder",
        &out,
        Some(2),
        &["--html", "no/such/folder/r.html"],
    );
    let out = repo
        .goal()
        .args(["report", "--html", "."])
        .output()
        .unwrap();
    assert_refused("report --html to a folder", &out, Some(2), &["not a file"]);
    let out = repo
        .goal()
        .args(["report", "--markdown", "--html", "r.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = repo
        .goal()
        .args(["fleet", "--html", "nope/f.html"])
        .output()
        .unwrap();
    assert_refused(
        "fleet --html into a missing folder",
        &out,
        Some(2),
        &["--html"],
    );
    assert_eq!(repo.status_porcelain(), before);
}

#[test]
fn the_fleet_dashboard_has_a_row_per_goal_in_flight() {
    let repo = goal_with_history();
    let (_tmp, other) = repo.add_worktree();
    repo.goal_in(&other)
        .args([
            "init",
            "--replace",
            "A second <i>goal</i>",
            "-c",
            "it works (verify: `sh t.sh`)",
        ])
        .assert()
        .success();
    repo.ok(&["fleet", "--html", "fleet.html"]);
    let page = repo.read("fleet.html");
    assert!(page.contains("default-src 'none'"));
    assert!(!page.contains("<script"));
    assert!(page.contains("<p class=\"meta\">2 in flight"), "{page}");
    assert!(page.contains("A second &lt;i&gt;goal&lt;/i&gt;"));
    assert!(page.contains("Draw &lt;b&gt;the&lt;/b&gt; goal"));
    assert!(
        page.contains("aria-label=\"1 of 1\""),
        "the proven bar of the first goal"
    );
}

/// Chromium, where installed (`.ci/run` installs Debian's; `GOAL_REQUIRE_CHROMIUM=1` makes a
/// missing one a failure).
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join(name))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() && std::env::var_os("GOAL_REQUIRE_CHROMIUM").is_some() {
        panic!("GOAL_REQUIRE_CHROMIUM is set but no chromium is on PATH");
    }
    found
}

/// Load a page in headless Chromium: its DOM after load, and what the console said.
fn load(browser: &Path, page: &Path, screenshot: Option<&Path>) -> (String, String) {
    let profile = tempfile::TempDir::new().unwrap();
    let mut cmd = std::process::Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1200,1400",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    match screenshot {
        Some(png) => cmd.arg(format!("--screenshot={}", png.display())),
        None => cmd.arg("--dump-dom"),
    };
    let out: Output = cmd
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let console: String = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Refused to") || l.contains("Uncaught"))
        .map(|l| format!("{l}\n"))
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

#[test]
fn the_pages_load_in_a_real_chromium_without_errors() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH");
        return;
    };
    let repo = goal_with_history();
    report_page(&repo);
    repo.ok(&["fleet", "--html", "fleet.html"]);
    // The console check can fail: a page whose inline script the policy blocks is caught.
    repo.write(
        "blocked.html",
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"><p>x</p><script>console.log(1)</script>",
    );
    let (_, console) = load(&browser, &repo.path().join("blocked.html"), None);
    assert!(
        console.contains("Content Security Policy"),
        "the check sees a blocked script: {console:?}"
    );

    let (dom, console) = load(&browser, &repo.path().join("report.html"), None);
    assert_eq!(console, "", "console errors in the report page");
    assert_eq!(
        dom.matches("<circle class=\"mark\"").count(),
        log_rows(&repo),
        "{dom}"
    );
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the criterion stays text"
    );
    let (dom, console) = load(&browser, &repo.path().join("fleet.html"), None);
    assert_eq!(console, "", "console errors in the fleet page");
    assert!(dom.contains("Goals in flight"));

    let png = repo.path().join("report.png");
    load(&browser, &repo.path().join("report.html"), Some(&png));
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "a screenshot was made"
    );
    if let Some(dir) = std::env::var_os("GOAL_SCREENSHOT_DIR") {
        std::fs::copy(&png, Path::new(&dir).join("report.png")).unwrap();
    }
}

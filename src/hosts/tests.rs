use super::*;

/// A user's settings with comments, a trailing comma, tabs and hooks of their own.
const USERS: &str = "// my settings\n{\n\t\"model\": \"x\", /* kept */\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}, // mine\n\t\t],\n\t\t\"PreToolUse\": []\n\t}\n}\n";

fn roundtrip(host: &Host, before: &str) -> String {
    let after = install(host, before, 3)
        .unwrap_or_else(|e| panic!("{}: {e:?}", host.name))
        .unwrap_or_else(|| panic!("{}: nothing added", host.name));
    assert_eq!(
        install(host, &after, 3).unwrap(),
        None,
        "{}: idempotent",
        host.name
    );
    let value = jsonc::parse(&after).unwrap().value();
    for event in host.events {
        let list = value["hooks"][event].as_array().unwrap();
        assert_eq!(
            list.iter().filter(|e| host.is_ours(e)).count(),
            1,
            "{}: {event} in {after}",
            host.name
        );
    }
    let removed = uninstall(host, &after).unwrap();
    if before.trim().is_empty() {
        assert_eq!(removed, Removed::Delete, "{}: {after}", host.name);
    } else {
        assert_eq!(
            removed,
            Removed::Text(before.to_string()),
            "{}: {after}",
            host.name
        );
    }
    after
}

#[test]
fn install_then_uninstall_gives_the_users_bytes_back() {
    let inputs = [
        "",
        USERS,
        "{}",
        "{ \"a\": 1 }",
        "{\n    \"hooks\": {\n        \"Stop\": [ ]\n    },\n    \"b\": [1,2,]\n}\n",
        "{\"hooks\": {\"Stop\": [{\"hooks\": []}], \"X\": [1]}, \"z\": null}",
    ];
    for host in HOSTS.iter().filter(|h| !h.events.is_empty()) {
        for before in inputs {
            roundtrip(host, before);
        }
    }
    let after = roundtrip(host("codex").unwrap(), USERS);
    assert!(after.starts_with("// my settings\n{\n\t\"model\": \"x\", /* kept */\n"));
    assert!(after.contains("\"command\": \"notify-send done\"}]},\n\t\t\t{\n\t\t\t\t\"hooks\": ["));
}

#[test]
fn cursor_gets_a_version_and_a_loop_limit_past_goals_bound() {
    let cursor = host("cursor").unwrap();
    let text = install(cursor, "", 3).unwrap().unwrap();
    let v = jsonc::parse(&text).unwrap().value();
    assert_eq!(v["version"], 1);
    assert_eq!(v["hooks"]["stop"][0]["loop_limit"], 4);
    assert_eq!(v["hooks"]["sessionStart"][0]["command"], "goal hook cursor");
    assert!(v["hooks"]["sessionStart"][0].get("loop_limit").is_none());
}

#[test]
fn files_that_are_not_settings_are_refused_with_their_line() {
    let codex = host("codex").unwrap();
    let cases = [
        ("{ not json", 1, "not JSON"),
        ("{\n\"a\": 1,\n\"b\" 2}", 3, "expected `:`"),
        ("[1]", 1, "the file is not an object"),
        ("{\"hooks\": []}", 1, "`hooks` is not an object"),
        (
            "{\"hooks\": {\"Stop\": {}}}",
            1,
            "`hooks.Stop` is not an array",
        ),
        ("{} /* open", 1, "not closed"),
    ];
    for (text, line, message) in cases {
        let e = install(codex, text, 3).unwrap_err();
        assert_eq!(e.line, line, "{text}: {e:?}");
        assert!(e.message.contains(message), "{text}: {e:?}");
    }
}

#[test]
fn uninstall_without_goals_entries_changes_nothing() {
    let claude = host("claude").unwrap();
    assert_eq!(uninstall(claude, USERS).unwrap(), Removed::Nothing);
    assert_eq!(uninstall(claude, "{}").unwrap(), Removed::Nothing);
}

#[test]
fn codex_mark_is_added_and_removed_byte_for_byte() {
    let inputs = [
        "",
        "# mine\nmodel = \"o3\"  # a comment\n\n[profiles.x]\nmodel = \"y\"\n",
        "[shell_environment_policy]\ninherit = \"core\"\n",
        "[shell_environment_policy]\nset = { FOO = \"1\" }\n",
        "[shell_environment_policy.set]\nFOO = \"1\"\n",
    ];
    for before in inputs {
        let after = codex_mark(before, true).unwrap().unwrap();
        let doc: toml_edit::DocumentMut = after.parse().unwrap();
        assert_eq!(
            doc["shell_environment_policy"]["set"]["GOAL_AGENT"].as_str(),
            Some("codex"),
            "{after}"
        );
        assert_eq!(codex_mark(&after, true).unwrap(), None);
        assert_eq!(
            codex_mark(&after, false).unwrap().unwrap(),
            before,
            "{after}"
        );
    }
    assert_eq!(codex_mark("a = 1\n", false).unwrap(), None);
    assert!(codex_mark("a = \n", true).is_err());
}

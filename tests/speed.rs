//! The fast paths give the same answers as the slow ones: the working tree's tree id read from
//! the index's stat data is the one git computes, on a large tree and on racily clean files.

use std::path::Path;

use crate::common::{EVIDENCE, Repo, TestEnv, stderr};

/// The last evidence record's (tree, tree_after).
fn last_record(repo: &Repo) -> (String, Option<String>) {
    let text = repo.read(EVIDENCE);
    let record: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    (
        record["tree"].as_str().unwrap().to_string(),
        record["tree_after"].as_str().map(str::to_string),
    )
}

/// `goal verify` with a command that proves nothing but records the tree it ran on.
fn verify(repo: &Repo, command: &str) {
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--check", "--", "sh", "-c", command])
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
}

/// A repository like `Repo::new()`'s, on tmpfs where there is one: creating 50,000 files on a
/// busy disk takes longer than everything else the test does.
fn repo_in_memory() -> Repo {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::TempDir::new_in(shm).unwrap()
    } else {
        tempfile::TempDir::new().unwrap()
    };
    let repo = Repo {
        dir,
        env: TestEnv::new(),
    };
    repo.git(&["init", "-q", "-b", "main"]);
    repo.git(&["config", "user.name", "Test"]);
    repo.git(&["config", "user.email", "test@example.invalid"]);
    repo.write("README.md", "# project\n");
    repo.git(&["add", "README.md"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    repo
}

fn set_mtime(path: &Path, epoch: i64) {
    let status = std::process::Command::new("touch")
        .arg("-m")
        .arg("-d")
        .arg(format!("@{epoch}"))
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn the_tree_id_of_50000_files_is_gits_after_every_kind_of_change() {
    use std::os::unix::fs::PermissionsExt;
    let repo = repo_in_memory();
    for dir in 0..500 {
        let path = repo.path().join(format!("src/d{dir}"));
        std::fs::create_dir_all(&path).unwrap();
        for file in 0..100 {
            // Few distinct contents: git writes one object per content, not one per file.
            std::fs::write(path.join(format!("f{file}.rs")), format!("// {file}\n")).unwrap();
        }
    }
    repo.write(".gitignore", "*.log\nbuild/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "50,000 files"]);
    repo.init_goal(&["it works"]);

    repo.write("src/d1/f1.rs", "// x\n"); // the same size as before
    repo.write("src/d2/f2.rs", "// changed and longer\n");
    repo.write("src/d3/f3.rs", "// changed and staged\n");
    repo.git(&["add", "src/d3/f3.rs"]);
    repo.write("src/d3/f3.rs", "// staged, then changed again\n");
    std::fs::remove_file(repo.path().join("src/d4/f4.rs")).unwrap();
    repo.git(&["rm", "-q", "src/d5/f5.rs"]);
    std::fs::remove_dir_all(repo.path().join("src/d6")).unwrap();
    let exec = repo.path().join("src/d7/f7.rs");
    std::fs::set_permissions(&exec, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.write("src/d8/new.rs", "// untracked in a tracked folder\n");
    repo.write("fresh/deep/er/new.rs", "// an untracked folder\n");
    repo.write("fresh/notes.log", "ignored by pattern\n");
    repo.write("build/out.o", "ignored folder\n");
    repo.write("src/d9/trace.log", "ignored in a tracked folder\n");
    std::os::unix::fs::symlink("d0/f0.rs", repo.path().join("src/link")).unwrap();
    // A tracked file that became a folder, and a tracked folder that became a file.
    std::fs::remove_file(repo.path().join("src/d10/f10.rs")).unwrap();
    repo.write("src/d10/f10.rs/inner.rs", "// was a file\n");
    std::fs::remove_dir_all(repo.path().join("src/d11")).unwrap();
    repo.write("src/d11", "// was a folder\n");

    let index_before = std::fs::read(repo.path().join(".git/index")).unwrap();
    verify(&repo, "test -e .");
    let index_after = std::fs::read(repo.path().join(".git/index")).unwrap();
    assert!(
        index_after == index_before,
        "the real index is never written by reading the tree"
    );
    let (tree, after) = last_record(&repo);
    assert_eq!(tree, repo.tree_by_git());
    assert_eq!(after, None, "the run changed nothing");

    // The second read (after the run) sees what the run added.
    verify(&repo, "test -e . && echo made > made-by-the-run.txt");
    let (_, after) = last_record(&repo);
    assert_eq!(after, Some(repo.tree_by_git()));
}

#[test]
fn a_racily_clean_file_is_read_again() {
    let repo = Repo::new();
    repo.init_goal(&["it works"]);
    // core.trustctime off leaves the mtime and the size as the only witnesses of a change.
    repo.git(&["config", "core.trustctime", "false"]);
    let future = 1_900_000_000;
    let path = repo.path().join("racy.txt");

    // Staged with an mtime at or after the index's own: racily clean.
    repo.write("racy.txt", "before\n");
    set_mtime(&path, future);
    repo.git(&["add", "racy.txt"]);
    repo.git(&["commit", "-q", "-m", "racy"]);
    repo.write("racy.txt", "after!\n");
    set_mtime(&path, future);
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());

    // Changed at once after it was staged, same size: within the index's timestamp.
    repo.write("quick.txt", "one\n");
    repo.git(&["add", "quick.txt"]);
    repo.write("quick.txt", "two\n");
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());
}

#[test]
fn the_index_s_own_tree_stands_only_while_it_is_whole() {
    let repo = Repo::new();
    repo.write("src/a.rs", "// a\n");
    repo.write("src/deep/b.rs", "// b\n");
    // Names that sort differently in git's order (a folder as `name/`) and by bytes.
    repo.write(".agents-notes.md", "beside the goal folder\n");
    repo.write(".agents/goal-notes.md", "beside the goal folder\n");
    repo.write("src.txt", "beside src/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code"]);
    repo.init_goal(&["it works"]);
    // A refreshed index after a commit: only the goal folder differs, and the index knows its
    // own tree.
    repo.git(&["status", "--porcelain"]);
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());
    // The index still knows its tree, but the working tree moved on: a new file, then an edit.
    repo.write("src/new.rs", "// new\n");
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());
    std::fs::remove_file(repo.path().join("src/new.rs")).unwrap();
    repo.write("src/a.rs", "// a, edited\n");
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());

    // Staged, not committed: the index's tree of `src/deep` is no longer known.
    repo.write("src/deep/b.rs", "// b, staged\n");
    repo.git(&["add", "src/deep/b.rs"]);
    repo.git(&["status", "--porcelain"]);
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());

    // Removed from the index only (`git rm --cached`): the file is untracked now, and counts.
    repo.git(&["rm", "-q", "--cached", "src/a.rs"]);
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());

    // An index written by `git read-tree` from another tree, the working tree unchanged.
    repo.git(&["read-tree", "HEAD~1"]);
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, repo.tree_by_git());

    // A change inside the goal folder alone leaves the tree as it was.
    let before = last_record(&repo).0;
    repo.write(".agents/goal/notes.md", "scratch\n");
    verify(&repo, "test -e .");
    assert_eq!(last_record(&repo).0, before);
}

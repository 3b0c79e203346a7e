//! A real git server on the loopback for the tests that race across machines: `git daemon`
//! serving one bare repository (pushes allowed), on a free port, in a process group of its own
//! that is killed when the server is dropped; clones of it, each in its own hermetic environment.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::common::{Repo, TestEnv};

pub struct GitServer {
    child: Child,
    /// Holds the bare repository `origin.git`.
    pub base: TempDir,
    /// `git://127.0.0.1:<port>/origin.git`.
    pub url: String,
}

/// A port nobody listens on now: bound on the loopback, then released.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl GitServer {
    /// Serve a bare clone of `seed` (its `main`) and wait until it answers.
    pub fn start(seed: &Repo) -> GitServer {
        let base = TempDir::new().unwrap();
        let bare = base.path().join("origin.git");
        let out = seed
            .git_cmd()
            .args(["clone", "-q", "--bare"])
            .arg(seed.path())
            .arg(&bare)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let port = free_port();
        let child = seed
            .env
            .command("git", base.path())
            .args([
                "daemon",
                "--export-all",
                "--enable=receive-pack",
                "--reuseaddr",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
            ])
            .arg(format!("--base-path={}", base.path().display()))
            .arg(base.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let server = GitServer {
            child,
            url: format!("git://127.0.0.1:{port}/origin.git"),
            base,
        };
        let started = Instant::now();
        while server
            .ls_remote(seed.home())
            .is_none_or(|refs| refs.is_empty())
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "git daemon does not answer on {}",
                server.url
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// The process group of the daemon and every process it started.
    pub fn group(&self) -> i32 {
        self.child.id() as i32
    }

    /// The server's refs (`git ls-remote`): (name, id); None when it does not answer.
    pub fn ls_remote(&self, dir: &Path) -> Option<Vec<(String, String)>> {
        let env = TestEnv::new();
        let out = env.git(dir).args(["ls-remote", &self.url]).output().ok()?;
        if !out.status.success() {
            return None;
        }
        Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| {
                    let (id, name) = l.split_once('\t')?;
                    Some((name.to_string(), id.to_string()))
                })
                .collect(),
        )
    }

    /// The refs under `prefix` on the server.
    pub fn refs(&self, prefix: &str) -> Vec<(String, String)> {
        self.ls_remote(self.base.path())
            .unwrap_or_default()
            .into_iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .collect()
    }

    /// git in the server's bare repository (the referee: what it holds).
    pub fn git(&self, args: &[&str]) -> String {
        let env = TestEnv::new();
        let out = env
            .git(&self.base.path().join("origin.git"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A clone of the server (as a runner or a sandbox makes one), with an identity.
    pub fn clone(&self, name: &str) -> Repo {
        let repo = Repo {
            dir: TempDir::new().unwrap(),
            env: TestEnv::new(),
        };
        let out = repo
            .git_cmd()
            .args(["clone", "-q", &self.url, "."])
            .output()
            .unwrap();
        assert!(out.status.success(), "git clone: {out:?}");
        repo.git(&["config", "user.name", name]);
        repo.git(&["config", "user.email", &format!("{name}@example.invalid")]);
        repo
    }
}

/// The processes in process group `group` (from /proc).
pub fn processes_in(group: i32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let stat = entry.path().join("stat");
        let Ok(text) = std::fs::read_to_string(&stat) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces, so read after its `)`.
        let Some(rest) = text.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|p| p.parse::<i32>().ok()) == Some(group) && fields[0] != "Z" {
            found.push(text.split(' ').take(2).collect::<Vec<_>>().join(" "));
        }
    }
    found
}

impl Drop for GitServer {
    fn drop(&mut self) {
        if let Some(group) = rustix::process::Pid::from_raw(self.group()) {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Stop `server` and assert that none of its processes is left.
pub fn stop(server: GitServer) {
    let group = server.group();
    drop(server);
    let started = Instant::now();
    loop {
        let left = processes_in(group);
        if left.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "git daemon's processes are left: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A folder for the racers' markers, outside every clone.
pub fn scratch() -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let path = dir.path().to_path_buf();
    (dir, path)
}

//! A run's whole process tree on Linux, read from /proc: its process group plus every descendant
//! by parent id (a child that called `setsid` left the group but not the tree), their
//! proportional set sizes, and killing them all.

use std::collections::BTreeMap;

use rustix::process::{Pid, Signal};

/// One process as /proc/<pid>/stat shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    pid: i32,
    ppid: i32,
    pgrp: i32,
    zombie: bool,
    /// Clock ticks after boot: with the pid, it names the process (pids are reused).
    start: u64,
}

/// `pid (comm) state ppid pgrp … starttime …` (comm may hold spaces and parentheses). Pure.
fn parse_stat(pid: i32, text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After comm: state(0) ppid(1) pgrp(2) … starttime is field 22 of the line, 19 here.
    Some(Stat {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        zombie: matches!(*fields.first()?, "Z" | "X"),
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Every process /proc shows (None: no /proc to read).
fn processes() -> Option<Vec<Stat>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if let Ok(text) = std::fs::read_to_string(entry.path().join("stat"))
            && let Some(stat) = parse_stat(pid, &text)
        {
            out.push(stat);
        }
    }
    Some(out)
}

/// The processes `goal` started itself and has not yet reaped: the roots of its runs (`goal
/// done` runs an exam beside the clean run) and the commands it runs in a process group of
/// their own (git, from another thread). None is ever an orphan of a run's tree, nor is
/// anything in their process groups.
static OWN: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

fn own() -> std::sync::MutexGuard<'static, Vec<i32>> {
    OWN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Spawn `command` as one of goal's own processes (see [`OWN`]): no run's tree reads /proc
/// between its start and its being known as goal's. [`reaped`] once it is waited for.
pub(super) fn spawn_own(
    command: &mut std::process::Command,
) -> std::io::Result<std::process::Child> {
    let mut own = own();
    let child = command.spawn()?;
    own.push(i32::try_from(child.id()).unwrap_or(0));
    Ok(child)
}

/// Goal's own process `pid` was waited for: its pid may name another process now.
pub(super) fn reaped(pid: u32) {
    let pid = i32::try_from(pid).unwrap_or(0);
    let mut own = own();
    if let Some(at) = own.iter().position(|&p| p == pid) {
        own.remove(at);
    }
}

/// The processes of one run, as far as polling has seen them.
pub(super) struct Tree {
    /// The command goal started (its process group has its pid).
    root: i32,
    /// `goal` itself: a subreaper, so that orphans of the run become its children.
    me: i32,
    /// `goal`'s own process group: a command goal runs itself (git) is in it, and is no orphan.
    my_group: i32,
    /// When the root started: an orphan handed to goal that started later is the run's.
    root_start: u64,
    /// Every process seen in the tree, with its start time.
    known: BTreeMap<i32, u64>,
}

impl Tree {
    pub(super) fn new(root: u32) -> Tree {
        let root = i32::try_from(root).unwrap_or(0);
        let root_start = std::fs::read_to_string(format!("/proc/{root}/stat"))
            .ok()
            .and_then(|t| parse_stat(root, &t))
            .map_or(0, |s| s.start);
        let me = rustix::process::getpid().as_raw_nonzero().get();
        Tree {
            root,
            me,
            my_group: rustix::process::getpgid(None).map_or(0, |g| g.as_raw_nonzero().get()),
            root_start,
            known: BTreeMap::from([(root, root_start)]),
        }
    }

    /// Read /proc again and add every new member: a child of a member, a member of the root's
    /// process group, or an orphan goal inherited that started after the root. The living
    /// members (None: no /proc).
    fn refresh(&mut self) -> Option<Vec<Stat>> {
        // Held while /proc is read: goal starts none of its own processes meanwhile.
        let own = own();
        let all = processes()?;
        // A pid seen before names the same process only with the same start time.
        let alive: Vec<Stat> = all
            .iter()
            .filter(|s| self.known.get(&s.pid).is_none_or(|&t| t == s.start))
            .copied()
            .collect();
        self.known
            .retain(|pid, start| alive.iter().any(|s| s.pid == *pid && s.start == *start));
        let others: Vec<i32> = own.iter().copied().filter(|&r| r != self.root).collect();
        drop(own);
        loop {
            let before = self.known.len();
            for s in &alive {
                let orphan = s.ppid == self.me
                    && s.pid != self.root
                    && s.start >= self.root_start
                    && s.pgrp != self.my_group
                    && !others.contains(&s.pid)
                    && !others.contains(&s.pgrp);
                let belongs = self.known.contains_key(&s.ppid) || s.pgrp == self.root || orphan;
                if belongs {
                    self.known.entry(s.pid).or_insert(s.start);
                }
            }
            if self.known.len() == before {
                break;
            }
        }
        Some(
            alive
                .into_iter()
                .filter(|s| self.known.get(&s.pid) == Some(&s.start))
                .collect(),
        )
    }

    /// The sum of the members' proportional set sizes, in bytes (None: /proc cannot tell).
    pub(super) fn pss(&mut self) -> Option<u64> {
        let members = self.refresh()?;
        let mut total = 0;
        for s in members.iter().filter(|s| !s.zombie) {
            total += pss_of(s.pid).unwrap_or(0);
        }
        Some(total)
    }

    /// SIGKILL every member until none is left (at most 2 s), and reap those that became
    /// goal's children. The root is reaped by whoever waits for it.
    pub(super) fn kill_all(&mut self) {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        loop {
            let Some(members) = self.refresh() else {
                return;
            };
            let living: Vec<&Stat> = members.iter().filter(|s| !s.zombie).collect();
            for s in &living {
                if let Some(pid) = Pid::from_raw(s.pid) {
                    let _ = rustix::process::kill_process(pid, Signal::KILL);
                }
            }
            if let Some(group) = Pid::from_raw(self.root) {
                let _ = rustix::process::kill_process_group(group, Signal::KILL);
            }
            self.reap(&members);
            if living.is_empty() || std::time::Instant::now() >= until {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Reap the members that are goal's zombie children (orphans it inherited), never the root.
    fn reap(&self, members: &[Stat]) {
        for s in members {
            if s.ppid == self.me
                && s.pid != self.root
                && let Some(pid) = Pid::from_raw(s.pid)
            {
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
            }
        }
    }
}

/// A process's proportional set size in bytes (`Pss:` of smaps_rollup, in kB).
fn pss_of(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Make `goal` the reaper of its descendants' orphans, so that a run's processes whose parent
/// exits stay in its tree (Linux; elsewhere nothing).
pub(super) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_reads_with_spaces_and_parentheses_in_its_name() {
        let line = "42 (a (b) c) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0";
        assert_eq!(
            parse_stat(42, line),
            Some(Stat {
                pid: 42,
                ppid: 7,
                pgrp: 42,
                zombie: false,
                start: 12345
            })
        );
        assert!(
            parse_stat(1, "1 (x) Z 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9")
                .is_some_and(|s| s.zombie)
        );
        assert_eq!(parse_stat(1, "1 (x) S"), None);
    }
}

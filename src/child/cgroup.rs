//! A memory cgroup of one run, where the system lets goal make one: a v2 cgroup under goal's own
//! when its memory controller is delegated there, else a v1 memory cgroup that goal may write.
//! The kernel holds the run to the bound (`memory.max`, `memory.limit_in_bytes`) and counts its
//! kills, which goal reads (`memory.events`, `memory.oom_control`).

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Cgroups made by this process, for unique names.
static MADE: AtomicUsize = AtomicUsize::new(0);

/// One run's cgroup, removed when dropped.
pub(super) struct Cgroup {
    dir: PathBuf,
    v2: bool,
    /// `cgroup.procs`, open for writing: the child writes itself into it before it runs the
    /// command, so nothing it starts is ever outside.
    procs: OwnedFd,
}

/// The path of goal's own cgroup in the hierarchy that has `controller` (v1), or the v2 path
/// (`controller` None), from /proc/self/cgroup. Pure.
fn own_path(text: &str, controller: Option<&str>) -> Option<String> {
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let wanted = match controller {
            None => id == "0" && controllers.is_empty(),
            Some(c) => controllers.split(',').any(|x| x == c),
        };
        wanted.then(|| path.trim_start_matches('/').to_string())
    })
}

impl Cgroup {
    /// A new cgroup bounded to `bytes`, or None when the system gives none (no cgroup file
    /// system, no memory controller delegated, no permission).
    pub(super) fn make(bytes: u64) -> Option<Cgroup> {
        let mine = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let name = format!(
            "goal-pin-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::SeqCst)
        );
        let v2 = own_path(&mine, None).and_then(|path| {
            ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                .iter()
                .map(Path::new)
                .filter(|m| m.join("cgroup.controllers").is_file())
                .find_map(|m| Cgroup::at(m.join(&path).join(&name), true, bytes))
        });
        v2.or_else(|| {
            let path = own_path(&mine, Some("memory"))?;
            let dir = Path::new("/sys/fs/cgroup/memory").join(path).join(&name);
            Cgroup::at(dir, false, bytes)
        })
    }

    fn at(dir: PathBuf, v2: bool, bytes: u64) -> Option<Cgroup> {
        std::fs::create_dir(&dir).ok()?;
        let made = (|| {
            let limit = if v2 {
                "memory.max"
            } else {
                "memory.limit_in_bytes"
            };
            std::fs::write(dir.join(limit), bytes.to_string()).ok()?;
            // Swap would hide memory from the bound; a group killed as one leaves no half.
            if v2 {
                let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                let _ = std::fs::write(dir.join("memory.oom.group"), "1");
            } else {
                let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
            }
            let procs = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
                .ok()?;
            Some(OwnedFd::from(procs))
        })();
        match made {
            Some(procs) => Some(Cgroup { dir, v2, procs }),
            None => {
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    /// How it is measured, for the record.
    pub(super) fn kind(&self) -> &'static str {
        if self.v2 { "cgroup v2" } else { "cgroup v1" }
    }

    /// The descriptor the child writes "0" into (itself) before it runs the command.
    pub(super) fn procs_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.procs.as_fd()
    }

    /// The memory the run uses now, in bytes.
    pub(super) fn usage(&self) -> Option<u64> {
        let file = if self.v2 {
            "memory.current"
        } else {
            "memory.usage_in_bytes"
        };
        std::fs::read_to_string(self.dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Whether the kernel killed a process of the run at the bound.
    pub(super) fn killed(&self) -> bool {
        let file = if self.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        std::fs::read_to_string(self.dir.join(file)).is_ok_and(|t| {
            t.lines()
                .filter_map(|l| l.strip_prefix("oom_kill "))
                .any(|n| n.trim().parse::<u64>().is_ok_and(|n| n > 0))
        })
    }

    /// Kill every process in the cgroup (v2 at once with `cgroup.kill` where the kernel has it).
    pub(super) fn kill_all(&self) {
        if self.v2 && std::fs::write(self.dir.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        if let Ok(text) = std::fs::read_to_string(self.dir.join("cgroup.procs")) {
            for pid in text.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
            }
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // A cgroup is removed once empty; what is left is killed and given a moment to go.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            self.kill_all();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_cgroup_paths_read_from_proc_self_cgroup() {
        let v1 = "9:name=systemd:/\n4:memory:/api/f2\n0::/\n";
        assert_eq!(own_path(v1, Some("memory")), Some("api/f2".into()));
        assert_eq!(own_path(v1, None), Some(String::new()));
        let v2 = "0::/user.slice/app.scope\n";
        assert_eq!(own_path(v2, None), Some("user.slice/app.scope".into()));
        assert_eq!(own_path(v2, Some("memory")), None);
        assert_eq!(
            own_path("5:cpu,memory:/x\n", Some("memory")),
            Some("x".into())
        );
    }
}

//! The bounds of every run of a pin: time (`goal.pinTimeout`) and memory (`goal.pinMemory`),
//! measured over the run's whole process tree — by a cgroup where one can be made, else by
//! polling proportional set sizes — never by address space (`RLIMIT_AS` breaks Go, the JVM and
//! V8 long before they use real memory). A run past a bound is cut off, every process of it
//! killed, and the cut-off is handed to the caller to record.

use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use super::cgroup::Cgroup;
use super::process_tree::Tree;
use crate::error::Result;
use crate::evidence::CutOff;

/// What a pin's run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub timeout: Duration,
    /// Bytes.
    pub memory: u64,
}

/// The time bound when nothing sets one: 15 minutes.
pub const DEFAULT_TIMEOUT_SECS: u64 = 900;

/// The share of the machine's memory a run may use when nothing sets a bound.
const DEFAULT_MEMORY_SHARE: (u64, u64) = (3, 4);

const MIB: u64 = 1024 * 1024;

impl Bounds {
    /// The bounds when no workspace says otherwise.
    pub fn defaults() -> Bounds {
        Bounds {
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            memory: default_memory(),
        }
    }
}

/// 75 % of the machine's physical memory (unbounded where it cannot be read).
pub fn default_memory() -> u64 {
    machine_memory().map_or(u64::MAX, |m| {
        m / DEFAULT_MEMORY_SHARE.1 * DEFAULT_MEMORY_SHARE.0
    })
}

/// The machine's physical memory in bytes: `MemTotal` of /proc/meminfo, `hw.memsize` on macOS.
pub fn machine_memory() -> Option<u64> {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        return text
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024);
    }
    let out = Command::new("sysctl")
        .args(["-n", "hw.memsize"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

type Source = Box<dyn Fn() -> Result<Bounds> + Send + Sync>;

/// Where this process's pin runs take their bounds from (set when a workspace opens).
static SOURCE: Mutex<Option<Source>> = Mutex::new(None);
/// How many times the time bound a run gets (a mutation check runs every pin many times).
static TIME_FACTOR: AtomicU32 = AtomicU32::new(1);
/// The note that memory is not bounded here is given once.
static NOTED_UNBOUNDED: AtomicBool = AtomicBool::new(false);

/// Take the bounds of every later pin run from `source` (read when a run starts, so that a
/// command that runs no pin never reads them).
pub fn bound_pins_by(source: impl Fn() -> Result<Bounds> + Send + Sync + 'static) {
    if let Ok(mut s) = SOURCE.lock() {
        *s = Some(Box::new(source));
    }
}

/// The bounds of a pin run now.
pub fn pin_bounds() -> Result<Bounds> {
    let mut bounds = match SOURCE.lock().ok().as_deref() {
        Some(Some(source)) => source()?,
        _ => Bounds::defaults(),
    };
    let factor = TIME_FACTOR.load(Ordering::SeqCst).max(1);
    bounds.timeout = bounds.timeout.saturating_mul(factor);
    Ok(bounds)
}

/// The time bound of one run of a pin, whatever a [`LongerRuns`] gives runs now: a mutation
/// tool's own timeout of each mutant (a mutant's test run is one run of the pins).
pub fn pin_timeout_each() -> Result<Duration> {
    Ok(match SOURCE.lock().ok().as_deref() {
        Some(Some(source)) => source()?,
        _ => Bounds::defaults(),
    }
    .timeout)
}

/// While alive, runs get `factor` times the time bound (the mutation check as a whole).
pub struct LongerRuns {
    was: u32,
}

impl LongerRuns {
    pub fn by(factor: u32) -> LongerRuns {
        LongerRuns {
            was: TIME_FACTOR.swap(factor.max(1), Ordering::SeqCst),
        }
    }
}

impl Drop for LongerRuns {
    fn drop(&mut self) {
        TIME_FACTOR.store(self.was, Ordering::SeqCst);
    }
}

/// A size in MiB for people.
pub fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / MIB)
}

/// How the run's memory is measured.
enum Probe {
    Cgroup(Cgroup),
    Pss,
    /// Nowhere to measure it (no cgroup, no /proc): time only.
    Unmeasured,
}

/// How often memory is read.
const POLL: Duration = Duration::from_millis(100);

/// One bounded run under way.
pub(super) struct Watch {
    bounds: Bounds,
    command: String,
    probe: Probe,
    tree: Option<Tree>,
    started: Instant,
    next_poll: Instant,
    said_half_time: bool,
    said_half_memory: bool,
    pub(super) cut: Option<CutOff>,
}

impl Watch {
    /// Ready to watch a run of `argv` (the bounds read now; a bad setting is an error).
    pub(super) fn prepare(argv: &[String]) -> Result<Watch> {
        let bounds = pin_bounds()?;
        let forced_pss = std::env::var("GOAL_PIN_MEMORY_PROBE").is_ok_and(|v| v == "pss");
        let probe = match (!forced_pss).then(|| Cgroup::make(bounds.memory)).flatten() {
            Some(c) => Probe::Cgroup(c),
            None if std::path::Path::new("/proc/self/smaps_rollup").exists() => Probe::Pss,
            None => {
                if !NOTED_UNBOUNDED.swap(true, Ordering::SeqCst) {
                    crate::context::warn_line(
                        "goal: note: the memory of pin runs is not bounded on this system (no cgroup goal can make, no /proc to poll): only their time is (goal.pinTimeout)",
                    );
                }
                Probe::Unmeasured
            }
        };
        super::process_tree::become_subreaper();
        let now = Instant::now();
        Ok(Watch {
            bounds,
            command: crate::pin::render(argv),
            probe,
            tree: None,
            started: now,
            next_poll: now,
            said_half_time: false,
            said_half_memory: false,
            cut: None,
        })
    }

    /// Have the child join the run's cgroup before it runs the command.
    pub(super) fn join_before_exec(&self, command: &mut Command) {
        if let Probe::Cgroup(c) = &self.probe {
            use std::os::fd::AsRawFd;
            use std::os::unix::process::CommandExt;
            let fd = c.procs_fd().as_raw_fd();
            // SAFETY: the closure runs in the forked child before exec and makes one write(2)
            // system call, which is async-signal-safe; `fd` stays open in the parent (the
            // cgroup lives until the run ends), so the child's copy is valid.
            #[allow(unsafe_code)]
            unsafe {
                command.pre_exec(move || {
                    let fd = std::os::fd::BorrowedFd::borrow_raw(fd);
                    rustix::io::write(fd, b"0")?;
                    Ok(())
                });
            }
        }
    }

    /// The run's root process has started.
    pub(super) fn started(&mut self, pid: u32) {
        self.started = Instant::now();
        self.next_poll = self.started;
        // The tree is read for its memory (polling) and, at the end, for what is left of it:
        // an orphan goal inherited is reaped, not left to a process 1 that may never reap it.
        if std::path::Path::new("/proc/self/stat").exists() {
            self.tree = Some(Tree::new(pid));
        }
    }

    /// Look at the run once more: true when it has just been cut off (and killed).
    pub(super) fn check(&mut self) -> bool {
        if self.cut.is_some() {
            return false;
        }
        let now = Instant::now();
        let ran = now - self.started;
        if ran >= self.bounds.timeout {
            return self.cut_off("timeout", None);
        }
        if !self.said_half_time && ran >= self.bounds.timeout / 2 {
            self.said_half_time = true;
            crate::context::warn_line(format!(
                "goal: `{}` has run {} s, half its time bound (goal.pinTimeout: {} s)",
                self.command,
                ran.as_secs(),
                self.bounds.timeout.as_secs()
            ));
        }
        if now < self.next_poll {
            return false;
        }
        self.next_poll = now + POLL;
        let (used, killed, measured) = match &self.probe {
            Probe::Cgroup(c) => (c.usage(), c.killed(), c.kind()),
            Probe::Pss => (self.tree.as_mut().and_then(Tree::pss), false, "pss"),
            Probe::Unmeasured => return false,
        };
        let used = used.unwrap_or(0);
        if killed || used > self.bounds.memory {
            return self.cut_off("memory", Some(measured));
        }
        if !self.said_half_memory && used >= self.bounds.memory / 2 {
            self.said_half_memory = true;
            crate::context::warn_line(format!(
                "goal: `{}` uses {}, half its memory bound (goal.pinMemory: {})",
                self.command,
                mib(used),
                mib(self.bounds.memory)
            ));
        }
        false
    }

    fn cut_off(&mut self, reason: &str, measured: Option<&str>) -> bool {
        let (bound, setting) = match reason {
            "memory" => (mib(self.bounds.memory), "goal.pinMemory"),
            _ => (
                format!("{} s", self.bounds.timeout.as_secs()),
                "goal.pinTimeout",
            ),
        };
        let cut = CutOff {
            reason: reason.to_string(),
            bound,
            setting: setting.to_string(),
            measured: measured.map(str::to_string),
        };
        crate::context::warn_line(format!(
            "goal: `{}` was {}; every process of it was killed",
            self.command,
            cut.describe()
        ));
        self.cut = Some(cut);
        self.kill_all();
        true
    }

    /// Kill every process of the run that is left.
    pub(super) fn kill_all(&mut self) {
        if let Probe::Cgroup(c) = &self.probe {
            c.kill_all();
        }
        if let Some(tree) = self.tree.as_mut() {
            tree.kill_all();
        }
    }

    /// The run's root has exited: a kill the kernel made at the bound since the last look is
    /// the run's cut-off, and whatever of the run is left goes.
    pub(super) fn finish(&mut self) {
        if self.cut.is_none()
            && let Probe::Cgroup(c) = &self.probe
            && c.killed()
        {
            let kind = c.kind();
            self.cut_off("memory", Some(kind));
        }
        self.kill_all();
    }

    /// The line added to the run's output when it was cut off.
    pub(super) fn output_line(&self) -> Option<String> {
        let cut = self.cut.as_ref()?;
        Some(format!(
            "\ngoal: `{}` was {}; every process of it was killed\n",
            self.command,
            cut.describe()
        ))
    }
}

//! The JUnit reports a run wrote, found by their patterns and read from disk: only reports
//! this run wrote count ([`crate::junit`] reads one report's XML).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::junit::counts;
use crate::summary::TestCounts;

/// Read the JUnit reports that `patterns` (paths or globs, relative to `base`) name, and sum
/// their counts. Every pattern must match a file, and every file must have been written by the
/// run that started at `since` (allowing 1 s for the filesystem's timestamp granularity): an
/// older report proves nothing about this run. Returns the sum and the files read.
pub fn read(
    patterns: &[String],
    base: &Path,
    since: SystemTime,
) -> Result<(TestCounts, Vec<PathBuf>), String> {
    let oldest = since.checked_sub(Duration::from_secs(1)).unwrap_or(since);
    let mut total = TestCounts::default();
    let mut read: Vec<PathBuf> = Vec::new();
    for pattern in patterns {
        let full = base.join(pattern);
        let full = full
            .to_str()
            .ok_or_else(|| format!("report pattern {pattern} is not valid UTF-8"))?;
        let matches =
            glob::glob(full).map_err(|e| format!("report pattern {pattern} is not valid: {e}"))?;
        let mut matched = false;
        for entry in matches {
            let path = entry.map_err(|e| format!("report pattern {pattern}: {e}"))?;
            if !path.is_file() {
                continue;
            }
            matched = true;
            if read.contains(&path) {
                continue;
            }
            let modified = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .map_err(|e| format!("report {}: {e}", path.display()))?;
            if modified < oldest {
                let when = chrono::DateTime::<chrono::Utc>::from(modified)
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                return Err(format!(
                    "report {} was not written by this run (modified {when})",
                    path.display()
                ));
            }
            let xml =
                std::fs::read(&path).map_err(|e| format!("report {}: {e}", path.display()))?;
            let counts = counts(&xml).map_err(|e| format!("report {}: {e}", path.display()))?;
            total.passed += counts.passed;
            total.failed += counts.failed;
            total.ignored += counts.ignored;
            read.push(path);
        }
        if !matched {
            return Err(format!("report pattern {pattern} matches no file"));
        }
    }
    Ok((total, read))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(passed: u64, failed: u64, ignored: u64) -> TestCounts {
        TestCounts {
            passed,
            failed,
            ignored,
        }
    }

    /// One passed, two failed, one skipped.
    const FOUR: &str = "<testsuite><testcase/><testcase><failure/></testcase><testcase><error/></testcase><testcase><skipped/></testcase></testsuite>";

    fn write(dir: &Path, name: &str, xml: &str, modified: SystemTime) {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, xml).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(modified).unwrap();
    }

    #[test]
    fn read_reports_sums_fresh_reports() {
        let dir = tempfile::tempdir().unwrap();
        let since = SystemTime::now();
        // Half a second before the start is within the timestamp granularity.
        let just_before = since - Duration::from_millis(500);
        write(dir.path(), "a/TEST-a.xml", FOUR, since);
        write(
            dir.path(),
            "b/TEST-b.xml",
            "<testsuite><testcase/><testcase/></testsuite>",
            just_before,
        );
        write(
            dir.path(),
            "report.xml",
            "<testsuites><testsuite><testcase/></testsuite></testsuites>",
            since + Duration::from_secs(3),
        );
        let patterns = [
            "*/TEST-*.xml".to_string(),
            "report.xml".to_string(),
            // Matching a file twice counts it once.
            "a/TEST-a.xml".to_string(),
        ];
        let (sum, files) = read(&patterns, dir.path(), since).unwrap();
        assert_eq!(sum, t(4, 2, 1));
        assert_eq!(
            files,
            [
                dir.path().join("a/TEST-a.xml"),
                dir.path().join("b/TEST-b.xml"),
                dir.path().join("report.xml"),
            ]
        );
    }

    #[test]
    fn read_reports_refuses_what_this_run_did_not_write() {
        let dir = tempfile::tempdir().unwrap();
        let since = SystemTime::now();
        write(
            dir.path(),
            "fresh.xml",
            "<testsuite><testcase/></testsuite>",
            since,
        );
        write(
            dir.path(),
            "old.xml",
            "<testsuite><testcase/></testsuite>",
            since - Duration::from_secs(5),
        );
        write(dir.path(), "broken/bad.xml", "<testsuite><testcase>", since);
        let cases: &[(&[&str], &str)] = &[
            (&["old.xml"], "report "),
            (
                &["fresh.xml", "*.xml"],
                "was not written by this run (modified ",
            ),
            (
                &["missing.xml"],
                "report pattern missing.xml matches no file",
            ),
            (
                &["fresh.xml", "out/*.xml"],
                "report pattern out/*.xml matches no file",
            ),
            (&["broken/bad.xml"], "still open"),
            (&["[.xml"], "report pattern [.xml is not valid"),
        ];
        for (patterns, want) in cases {
            let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
            match read(&patterns, dir.path(), since) {
                Err(e) => assert!(e.contains(want), "{patterns:?}: {e}"),
                Ok(r) => panic!("{patterns:?}: expected an error, got {r:?}"),
            }
        }
        let err = read(&["old.xml".to_string()], dir.path(), since).unwrap_err();
        assert!(err.contains("old.xml was not written by this run"), "{err}");
    }
}

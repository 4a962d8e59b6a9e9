//! Tests that hold thousands of sockets need more open files than a default
//! soft limit allows.

/// Raises this process's soft RLIMIT_NOFILE (the server it spawns inherits
/// it) to `needed`. When the hard limit is too low, says why and returns
/// false so the test can return early; never a silent pass: under CI
/// (`CI` set) it fails instead.
pub fn raise_or_skip(test: &str, needed: u64) -> bool {
    let why = match rlimit::getrlimit(rlimit::Resource::NOFILE) {
        Err(err) => err.to_string(),
        Ok((_, hard)) if hard < needed => format!(
            "the hard limit on open files is {hard}, and this test needs {needed} \
             in the test and in the server; raise it (ulimit -Hn, or nofile in \
             /etc/security/limits.conf) to run it"
        ),
        Ok(_) => match rlimit::increase_nofile_limit(needed) {
            Ok(soft) if soft >= needed => return true,
            Ok(soft) => format!("could raise the open-file limit only to {soft} of {needed}"),
            Err(err) => err.to_string(),
        },
    };
    assert!(std::env::var_os("CI").is_none(), "{test}: {why}");
    eprintln!("SKIPPED {test}: {why}");
    false
}

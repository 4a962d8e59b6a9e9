//! The process's file-descriptor limit, raised at start to fit
//! `--max-connections` and the side ports' `--max-side-port-connections`
//! each (`super::side_port`): past the limit `accept` fails and new clients wait,
//! which is the lock-out the connection cap exists to prevent.

/// Descriptors kept for everything but client connections: the listeners,
/// connections to a Redis store, log files, the runtime's own.
pub const SPARE_DESCRIPTORS: u64 = 1024;

/// Raises the soft limit to fit `max_connections` plus `side_ports`, the
/// places of the side ports that are on. When even the hard limit is too
/// low, a `max_connections` that was `given` is an error naming the fix;
/// the default is lowered to fit, and the new value returned.
pub fn fit(max_connections: usize, side_ports: usize, given: bool) -> Result<usize, String> {
    let spare = SPARE_DESCRIPTORS + side_ports as u64;
    let wanted = max_connections as u64 + spare;
    let (soft, hard) = rlimit::Resource::NOFILE
        .get()
        .map_err(|e| format!("cannot read the file-descriptor limit: {e}"))?;
    if soft >= wanted {
        return Ok(max_connections);
    }
    let target = wanted.min(hard);
    if target > soft {
        rlimit::Resource::NOFILE
            .set(target, hard)
            .map_err(|e| format!("cannot raise the file-descriptor limit to {target}: {e}"))?;
    }
    if target == wanted {
        return Ok(max_connections);
    }
    let fits = hard.saturating_sub(spare) as usize;
    if given || fits == 0 {
        return Err(format!(
            "--max-connections {max_connections} needs {wanted} file descriptors, but the hard \
             limit is {hard}; lower --max-connections to {fits} or raise the limit \
             (`ulimit -Hn`, LimitNOFILE= in a systemd unit)"
        ));
    }
    Ok(fits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_past_the_hard_limit_is_an_error_only_when_given() {
        let (_, hard) = rlimit::Resource::NOFILE.get().unwrap();
        if hard == rlimit::INFINITY {
            return;
        }
        let too_many = hard as usize;
        let error = fit(too_many, 0, true).unwrap_err();
        assert!(error.contains("--max-connections"), "{error}");
        assert_eq!(
            fit(too_many, 0, false).unwrap(),
            (hard - SPARE_DESCRIPTORS) as usize
        );
        // The side ports' places come out of what the cache ports may have.
        assert_eq!(
            fit(too_many, 128, false).unwrap(),
            (hard - SPARE_DESCRIPTORS - 128) as usize
        );
        assert_eq!(fit(10, 128, true).unwrap(), 10);
    }
}

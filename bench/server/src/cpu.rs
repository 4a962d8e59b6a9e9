//! CPU time of a process, from /proc/PID/stat, and the time its threads
//! waited for a core, from /proc/PID/task/*/schedstat.
//!
//! utime + stime cover every thread of the process (live and exited), in
//! clock ticks (USER_HZ, 100 per second on Linux): over a 10 s window of a
//! busy core that is about 1,000 ticks, so the rounding is ~0.1%.

use std::{fs, io, time::Duration};

/// CPU time a process has used so far, user plus system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTicks(pub u64);

impl CpuTicks {
    /// Reads `/proc/<pid>/stat`; `None` reads this process.
    pub fn of(pid: Option<u32>) -> io::Result<Self> {
        let path = match pid {
            Some(pid) => format!("/proc/{pid}/stat"),
            None => "/proc/self/stat".to_string(),
        };
        let stat = fs::read_to_string(&path)?;
        parse_stat(&stat)
            .map(CpuTicks)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("bad {path}")))
    }

    /// The sum over several processes (front-ends, store nodes); `None` for
    /// none.
    pub fn of_all(pids: &[u32]) -> io::Result<Option<Self>> {
        if pids.is_empty() {
            return Ok(None);
        }
        let mut total = 0;
        for &pid in pids {
            total += Self::of(Some(pid))
                .map_err(|e| io::Error::new(e.kind(), format!("pid {pid}: {e}")))?
                .0;
        }
        Ok(Some(CpuTicks(total)))
    }

    /// Seconds of CPU between `self` (earlier) and `later`.
    pub fn seconds_until(self, later: CpuTicks) -> f64 {
        later.0.saturating_sub(self.0) as f64 / ticks_per_second() as f64
    }
}

/// CPU time every process on the machine has used so far (the first line of
/// /proc/stat, all cores): what is not ours in a window is the noise of a
/// shared machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineTicks {
    /// Ticks not idle and not waiting for I/O.
    pub busy: u64,
}

impl MachineTicks {
    pub fn read() -> io::Result<Self> {
        let stat = fs::read_to_string("/proc/stat")?;
        stat.lines()
            .next()
            .and_then(parse_machine)
            .map(|busy| MachineTicks { busy })
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad /proc/stat"))
    }

    /// CPU seconds used on the machine between `self` (earlier) and `later`.
    pub fn seconds_until(self, later: MachineTicks) -> f64 {
        later.busy.saturating_sub(self.busy) as f64 / ticks_per_second() as f64
    }
}

/// Busy ticks of a `cpu  user nice system idle iowait irq softirq steal ...`
/// line. guest and guest_nice (fields 9 and 10) are already inside user and
/// nice, so only the first eight count.
fn parse_machine(line: &str) -> Option<u64> {
    let mut fields = line.split_ascii_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let ticks: Vec<u64> = fields
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let (idle, iowait) = (*ticks.get(3)?, ticks.get(4).copied().unwrap_or(0));
    Some(ticks.iter().sum::<u64>() - idle - iowait)
}

/// Time the live threads of a process (`None`: this one) have spent
/// runnable but waiting for a core, in nanoseconds: on a shared machine,
/// the time other processes held the core. The second field of each
/// thread's schedstat; threads gone since are not counted.
pub fn runqueue_wait(pid: Option<u32>) -> io::Result<Duration> {
    let dir = match pid {
        Some(pid) => format!("/proc/{pid}/task"),
        None => "/proc/self/task".to_string(),
    };
    let mut nanos = 0u64;
    for task in fs::read_dir(&dir)? {
        // A thread may end between the listing and the read.
        let Ok(stat) = fs::read_to_string(task?.path().join("schedstat")) else {
            continue;
        };
        nanos += stat
            .split_ascii_whitespace()
            .nth(1)
            .and_then(|wait| wait.parse::<u64>().ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("bad {dir}")))?;
    }
    Ok(Duration::from_nanos(nanos))
}

/// Clock ticks per second of the times in /proc/PID/stat.
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a constant of the C library.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as u64
    } else {
        100
    }
}

/// utime + stime (fields 14 and 15) of a /proc/PID/stat line. The command
/// name (field 2) is in parentheses and may hold spaces and ')', so fields
/// are counted from the last ')'.
fn parse_stat(stat: &str) -> Option<u64> {
    let after_comm = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_comm.split_ascii_whitespace();
    // Field 3 (state) is the first after the name; utime is field 14.
    let utime: u64 = fields.nth(14 - 3)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_name_with_spaces_and_parens() {
        let stat = "1234 (a b) c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 \
                    250 75 0 0 20 0 3 0 100 1000 50 18446744073709551615";
        assert_eq!(parse_stat(stat), Some(325));
    }

    #[test]
    fn reads_this_process() {
        assert!(CpuTicks::of(None).is_ok());
        assert!(runqueue_wait(None).is_ok());
    }

    #[test]
    fn machine_busy_leaves_out_idle_iowait_and_guest() {
        let line = "cpu  100 5 50 1000 20 3 2 1 40 0";
        assert_eq!(parse_machine(line), Some(161));
        assert!(MachineTicks::read().is_ok());
    }
}

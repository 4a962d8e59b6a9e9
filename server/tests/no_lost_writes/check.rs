//! The checker: given every acknowledged call with its send and answer
//! times, does each read (during the run and after it) return something a
//! linearizable cache could have returned, and does each counter hold the
//! sum of its acknowledged increments?
//!
//! Each key has one register-like history, so it is checked on its own. A
//! write W is certainly replaced by a write W2 once W2 was sent after W was
//! answered and W2 was answered before a read was sent: then the read may
//! not return W. That rule, and a write not being visible before it was
//! sent, is what a single-key register guarantees; checking it needs no
//! search, only each write's earliest-answered successor.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bytes::Bytes;

use super::history::{Call, Key, Op, SHORT_TTL};

/// What was checked, for the report.
#[derive(Debug, Default)]
pub struct Counts {
    pub keys: usize,
    pub sets: usize,
    pub deletes: usize,
    pub reads: usize,
    pub increments: usize,
    pub counters: usize,
    pub increment_sum: i64,
}

/// The writes (Set, Delete) of one key, by send time, and for each position
/// the earliest answer among the writes sent from there on.
struct Writes<'a> {
    by_send: Vec<&'a Op>,
    earliest_ack_from: Vec<Duration>,
}

impl<'a> Writes<'a> {
    fn new(ops: &[&'a Op]) -> Writes<'a> {
        let mut by_send: Vec<&Op> = ops.iter().copied().filter(|op| op.is_write()).collect();
        by_send.sort_by_key(|op| op.send);
        let mut earliest_ack_from = vec![Duration::MAX; by_send.len() + 1];
        for i in (0..by_send.len()).rev() {
            earliest_ack_from[i] = earliest_ack_from[i + 1].min(by_send[i].ack);
        }
        Writes {
            by_send,
            earliest_ack_from,
        }
    }

    /// The earliest answer of any write sent strictly after `instant`.
    fn earliest_ack_after(&self, instant: Duration) -> Duration {
        let first = self.by_send.partition_point(|op| op.send <= instant);
        self.earliest_ack_from[first]
    }

    /// Whether a write answered at `ack` was certainly replaced before `read_send`.
    fn replaced(&self, ack: Duration, read_send: Duration) -> bool {
        self.earliest_ack_after(ack) < read_send
    }
}

/// Checks the reads of a register or short key; violations are appended.
fn check_reads(key: Key, ops: &[&Op], reads: &[&Op], violations: &mut Vec<String>) {
    let writes = Writes::new(ops);
    let by_value: HashMap<&Bytes, &Op> = writes
        .by_send
        .iter()
        .filter_map(|op| match &op.call {
            Call::Set { value, .. } => Some((value, *op)),
            _ => None,
        })
        .collect();
    for read in reads {
        let Call::Get { found } = &read.call else {
            unreachable!()
        };
        let verdict = match found {
            Some(value) => check_hit(&writes, &by_value, value, read),
            None => check_miss(key, &writes, read),
        };
        if let Err(why) = verdict {
            violations.push(format!("{}: {why}: {read:?}", key.name()));
        }
    }
}

fn check_hit(
    writes: &Writes,
    by_value: &HashMap<&Bytes, &Op>,
    value: &Bytes,
    read: &Op,
) -> Result<(), String> {
    let Some(write) = by_value.get(value) else {
        return Err("read a value never written to this key".into());
    };
    let Call::Set { ttl, .. } = write.call else {
        unreachable!()
    };
    if write.send >= read.ack {
        return Err(format!("read a value before its Set was sent: {write:?}"));
    }
    if writes.replaced(write.ack, read.send) {
        return Err(format!(
            "stale read: a later write had been answered: {write:?}"
        ));
    }
    // It expired at most `ttl` after its Set was answered.
    if read.send >= write.ack + ttl {
        return Err(format!("read a value after its TTL: {write:?}"));
    }
    Ok(())
}

fn check_miss(key: Key, writes: &Writes, read: &Op) -> Result<(), String> {
    match key {
        // Never deleted, all with one TTL: once a Set was answered the key
        // holds some value until SHORT_TTL after that Set was sent.
        Key::Short(_) => match writes
            .by_send
            .iter()
            .find(|w| w.ack < read.send && read.ack < w.send + SHORT_TTL)
        {
            Some(live) => Err(format!(
                "lost write: a miss while this Set was live: {live:?}"
            )),
            None => Ok(()),
        },
        // Long TTLs: a miss is the initial state or a Delete, not replaced.
        _ => {
            let initial = writes.by_send.iter().all(|w| w.ack >= read.send);
            let deleted = writes.by_send.iter().any(|w| {
                matches!(w.call, Call::Delete)
                    && w.send < read.ack
                    && !writes.replaced(w.ack, read.send)
            });
            if initial || deleted {
                Ok(())
            } else {
                Err("lost write: a miss though no Delete could be the latest write".into())
            }
        }
    }
}

/// Increments of one counter, by positive amounts: sorted by the total each
/// answered, every total must be the previous one plus its own amount (no
/// increment lost, none applied twice), real-time order must agree, and
/// each read must be a total not yet replaced when it was sent.
fn check_counter(key: Key, ops: &[&Op], violations: &mut Vec<String>) -> (usize, i64) {
    let mut increments: Vec<(&Op, i64, i64)> = ops
        .iter()
        .filter_map(|op| match op.call {
            Call::Increment { amount, total } => Some((*op, amount, total)),
            _ => None,
        })
        .collect();
    increments.sort_by_key(|&(_, _, total)| total);
    let mut previous = 0;
    for &(op, amount, total) in &increments {
        if total != previous + amount {
            violations.push(format!(
                "{}: the total after {previous} should be {}: {op:?}",
                key.name(),
                previous + amount
            ));
        }
        previous = total;
    }
    // The order of totals must not contradict real time.
    let mut earliest_ack_later = Duration::MAX;
    for &(op, _, _) in increments.iter().rev() {
        if earliest_ack_later < op.send {
            violations.push(format!(
                "{}: an increment answered before this one was sent got a larger total: {op:?}",
                key.name()
            ));
        }
        earliest_ack_later = earliest_ack_later.min(op.ack);
    }
    let totals: BTreeMap<i64, &Op> = increments.iter().map(|&(op, _, t)| (t, op)).collect();
    for read in ops.iter().filter(|op| !op.is_write()) {
        let Call::Get { found } = &read.call else {
            unreachable!()
        };
        let value = found.as_ref().map(|v| {
            std::str::from_utf8(v)
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .unwrap_or(i64::MIN)
        });
        let verdict = match value {
            None if increments.iter().any(|(op, _, _)| op.ack < read.send) => {
                Err("a miss after an increment was answered".to_owned())
            }
            None => Ok(()),
            Some(value) => match totals.get(&value) {
                None => Err(format!("read {value}, a total no increment answered")),
                Some(op) if op.send >= read.ack => Err(format!(
                    "read a total before its increment was sent: {op:?}"
                )),
                Some(_) => match totals.range(value + 1..).find(|(_, op)| op.ack < read.send) {
                    Some((_, later)) => Err(format!("stale read of {value}: {later:?}")),
                    None => Ok(()),
                },
            },
        };
        if let Err(why) = verdict {
            violations.push(format!("{}: {why}: {read:?}", key.name()));
        }
    }
    (increments.len(), previous)
}

/// Checks every key's history (`ops`, final reads included). Returns what
/// was checked, or every violation found.
pub fn check(ops: &[Op]) -> Result<Counts, Vec<String>> {
    let mut by_key: BTreeMap<Key, Vec<&Op>> = BTreeMap::new();
    for op in ops {
        by_key.entry(op.key).or_default().push(op);
    }
    let mut counts = Counts {
        keys: by_key.len(),
        ..Counts::default()
    };
    let mut violations = Vec::new();
    for (key, ops) in &by_key {
        for op in ops {
            match op.call {
                Call::Set { .. } => counts.sets += 1,
                Call::Delete => counts.deletes += 1,
                Call::Get { .. } => counts.reads += 1,
                Call::Increment { .. } => {}
            }
        }
        match key {
            Key::Counter(_) => {
                let (increments, sum) = check_counter(*key, ops, &mut violations);
                counts.counters += 1;
                counts.increments += increments;
                counts.increment_sum += sum;
            }
            _ => {
                let reads: Vec<&Op> = ops.iter().copied().filter(|op| !op.is_write()).collect();
                check_reads(*key, ops, &reads, &mut violations);
            }
        }
    }
    if violations.is_empty() {
        Ok(counts)
    } else {
        Err(violations)
    }
}

#[cfg(test)]
mod tests {
    //! The checker must catch what it is for: each case breaks one rule.
    use super::*;

    fn op(key: Key, call: Call, send: u64, ack: u64) -> Op {
        Op {
            key,
            call,
            send: Duration::from_millis(send),
            ack: Duration::from_millis(ack),
        }
    }

    fn set(value: &'static str) -> Call {
        Call::Set {
            value: Bytes::from_static(value.as_bytes()),
            ttl: Duration::from_secs(3600),
        }
    }

    fn get(value: Option<&'static str>) -> Call {
        Call::Get {
            found: value.map(|v| Bytes::from_static(v.as_bytes())),
        }
    }

    const R: Key = Key::Register(0);
    const C: Key = Key::Counter(0);

    #[test]
    fn overlapping_writes_may_be_read_in_either_order() {
        let ops = [
            op(R, set("a"), 0, 10),
            op(R, set("b"), 5, 15),
            op(R, get(Some("a")), 20, 21),
        ];
        assert!(check(&ops).is_ok());
    }

    #[test]
    fn a_replaced_value_is_a_stale_read() {
        let ops = [
            op(R, set("a"), 0, 10),
            op(R, set("b"), 11, 15),
            op(R, get(Some("a")), 20, 21),
        ];
        assert!(check(&ops).is_err());
    }

    #[test]
    fn a_miss_after_an_answered_set_is_a_lost_write() {
        let ops = [op(R, set("a"), 0, 10), op(R, get(None), 20, 21)];
        assert!(check(&ops).is_err());
        let deleted = [
            op(R, set("a"), 0, 10),
            op(R, Call::Delete, 12, 14),
            op(R, get(None), 20, 21),
        ];
        assert!(check(&deleted).is_ok());
    }

    #[test]
    fn a_live_short_key_may_not_miss() {
        let s = Key::Short(0);
        let short = |v| Call::Set {
            value: Bytes::from_static(v),
            ttl: SHORT_TTL,
        };
        let ops = [op(s, short(b"a"), 0, 10), op(s, get(None), 20, 21)];
        assert!(check(&ops).is_err());
        let expired = [op(s, short(b"a"), 0, 10), op(s, get(None), 2_100, 2_101)];
        assert!(check(&expired).is_ok());
        let read_expired = [
            op(s, short(b"a"), 0, 10),
            op(s, get(Some("a")), 2_100, 2_101),
        ];
        assert!(check(&read_expired).is_err());
    }

    #[test]
    fn counters_must_chain() {
        let inc = |amount, total| Call::Increment { amount, total };
        let good = [op(C, inc(2, 2), 0, 5), op(C, inc(3, 5), 1, 6)];
        assert_eq!(check(&good).unwrap().increment_sum, 5);
        // The second increment answered 4: one of them was not applied whole.
        let lost = [op(C, inc(2, 2), 0, 5), op(C, inc(3, 4), 1, 6)];
        assert!(check(&lost).is_err());
        // Totals in an order real time rules out.
        let reordered = [op(C, inc(3, 5), 0, 5), op(C, inc(2, 2), 10, 15)];
        assert!(check(&reordered).is_err());
        let stale = [
            op(C, inc(2, 2), 0, 5),
            op(C, inc(3, 5), 6, 8),
            op(C, get(Some("2")), 9, 10),
        ];
        assert!(check(&stale).is_err());
    }
}

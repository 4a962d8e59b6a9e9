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

/// The writes (Set, Delete) of one key, indexed so that each question a
/// read asks takes a binary search: a long run checks millions of reads.
struct Writes<'a> {
    /// By send time.
    by_send: Vec<&'a Op>,
    /// At `i`: the earliest answer among `by_send[i..]`.
    earliest_ack_from: Vec<Duration>,
    /// The earliest answer of any write.
    first_ack: Duration,
    /// Answer times, ascending, and at `i` the latest send among the writes
    /// answered up to `acks[i]`.
    acks: Vec<Duration>,
    latest_send_until: Vec<Duration>,
    /// Deletes by send time, and at `i` the latest instant until which one
    /// of `deletes[..=i]` is certainly not replaced.
    deletes: Vec<Duration>,
    delete_unreplaced_until: Vec<Duration>,
}

impl<'a> Writes<'a> {
    fn new(ops: &[&'a Op]) -> Writes<'a> {
        let mut by_send: Vec<&Op> = ops.iter().copied().filter(|op| op.is_write()).collect();
        by_send.sort_by_key(|op| op.send);
        let mut earliest_ack_from = vec![Duration::MAX; by_send.len() + 1];
        for i in (0..by_send.len()).rev() {
            earliest_ack_from[i] = earliest_ack_from[i + 1].min(by_send[i].ack);
        }
        let mut by_ack = by_send.clone();
        by_ack.sort_by_key(|op| op.ack);
        let acks = by_ack.iter().map(|op| op.ack).collect();
        let latest_send_until = by_ack
            .iter()
            .scan(Duration::ZERO, |latest, op| {
                *latest = (*latest).max(op.send);
                Some(*latest)
            })
            .collect();
        let mut writes = Writes {
            first_ack: earliest_ack_from[0],
            by_send,
            earliest_ack_from,
            acks,
            latest_send_until,
            deletes: Vec::new(),
            delete_unreplaced_until: Vec::new(),
        };
        let mut unreplaced = Duration::ZERO;
        for op in &writes.by_send {
            if matches!(op.call, Call::Delete) {
                unreplaced = unreplaced.max(writes.earliest_ack_after(op.ack));
                writes.deletes.push(op.send);
                writes.delete_unreplaced_until.push(unreplaced);
            }
        }
        writes
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

    /// The latest send among writes answered strictly before `instant`.
    fn latest_send_answered_before(&self, instant: Duration) -> Option<Duration> {
        let count = self.acks.partition_point(|&ack| ack < instant);
        count.checked_sub(1).map(|i| self.latest_send_until[i])
    }

    /// Whether a Delete sent before `read.ack` was not certainly replaced
    /// when `read` was sent: then a miss may be its effect.
    fn delete_may_be_latest(&self, read: &Op) -> bool {
        let count = self.deletes.partition_point(|&send| send < read.ack);
        count
            .checked_sub(1)
            .is_some_and(|i| self.delete_unreplaced_until[i] >= read.send)
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
        Key::Short(_) => match writes.latest_send_answered_before(read.send) {
            Some(send) if read.ack < send + SHORT_TTL => Err(format!(
                "lost write: a miss while the Set sent at {send:?} was live"
            )),
            _ => Ok(()),
        },
        // Long TTLs: a miss is the initial state or a Delete, not replaced.
        _ => {
            let initial = writes.first_ack >= read.send;
            if initial || writes.delete_may_be_latest(read) {
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
    let totals: HashMap<i64, &Op> = increments.iter().map(|&(op, _, t)| (t, op)).collect();
    // At `i`: the earliest answer among the increments with the `i`-th
    // smallest total and larger ones.
    let mut earliest_ack_from = vec![Duration::MAX; increments.len() + 1];
    for (i, (op, _, _)) in increments.iter().enumerate().rev() {
        earliest_ack_from[i] = earliest_ack_from[i + 1].min(op.ack);
    }
    let first_ack = earliest_ack_from[0];
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
            None if first_ack < read.send => {
                Err("a miss after an increment was answered".to_owned())
            }
            None => Ok(()),
            Some(value) => match totals.get(&value) {
                None => Err(format!("read {value}, a total no increment answered")),
                Some(op) if op.send >= read.ack => Err(format!(
                    "read a total before its increment was sent: {op:?}"
                )),
                Some(_) => {
                    let larger = increments.partition_point(|&(_, _, total)| total <= value);
                    if earliest_ack_from[larger] < read.send {
                        Err(format!(
                            "stale read of {value}: a larger total had been answered"
                        ))
                    } else {
                        Ok(())
                    }
                }
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
        let set_again = [
            op(R, set("a"), 0, 10),
            op(R, Call::Delete, 12, 14),
            op(R, set("b"), 15, 16),
            op(R, get(None), 20, 21),
        ];
        assert!(check(&set_again).is_err());
        // The Delete and the second Set overlap: either may be the latest.
        let overlapping = [
            op(R, set("a"), 0, 10),
            op(R, Call::Delete, 12, 18),
            op(R, set("b"), 15, 16),
            op(R, get(None), 20, 21),
        ];
        assert!(check(&overlapping).is_ok());
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

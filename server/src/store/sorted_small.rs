//! A small sorted set packed in one buffer (as Redis's listpack encoding of
//! a sorted set): each element one entry of a [`Packed`] run, the member
//! then its score, in the set's order (score, then member bytes). A member
//! costs its bytes and the entry's length byte; a score one byte to nine
//! (see [`encode_score`]), where the large form (`sorted_large.rs`) spends
//! about 40 bytes of structure per element.
//!
//! Every operation walks the run: O(n) for n elements, which the sorted
//! set bounds (`sorted_set::SMALL_MAX_ELEMENTS` of at most
//! `SMALL_MAX_MEMBER` bytes each), so a walk is a few hundred bytes.

use std::ops::Range;

use prost::encoding::decode_varint;

use super::packed::{entry_len, Packed};
use super::sorted_set::element_encoded_len;

/// The most bytes a score takes before its tag: an `f64`'s.
const SCORE_BYTES: usize = 8;

/// A score's tag (the entry's last byte) below this is the score itself,
/// as the zigzag of its difference from the score before it.
const INLINE: u8 = 0xF0;

/// The tag of a score kept as the eight bytes of its `f64`; between
/// [`INLINE`] and this, `INLINE + n` says the difference takes the `n`
/// bytes before the tag.
const FLOAT: u8 = 0xF8;

/// A whole score (as scores often are: counts, ids, timestamps) below 2^53
/// in magnitude, as an integer.
fn whole(score: f64) -> Option<i64> {
    let int = score as i64;
    (int as f64 == score && int.unsigned_abs() < 1 << 53).then_some(int)
}

/// A score's bytes and tag, given the score before it in the run (0 for
/// the first). A whole score after a whole one is kept as their difference
/// (the elements are in score order, so it is small where scores are
/// close: ten consecutive counts take a byte each after the first), as its
/// zigzag value in the tag alone when under [`INLINE`], else in the fewest
/// little-endian bytes and a tag; any other score as its `f64`.
fn encode_score(score: f64, before: f64, buf: &mut [u8; SCORE_BYTES + 1]) -> &[u8] {
    if let (Some(int), Some(before)) = (whole(score), whole(before)) {
        // Both below 2^53 in magnitude: the difference fits, and its
        // zigzag value in seven bytes.
        let difference = int - before;
        let zigzag = ((difference << 1) ^ (difference >> 63)) as u64;
        if zigzag < u64::from(INLINE) {
            buf[0] = zigzag as u8;
            return &buf[..1];
        }
        let len = (u64::BITS - zigzag.leading_zeros()).div_ceil(8) as usize;
        buf[..len].copy_from_slice(&zigzag.to_le_bytes()[..len]);
        buf[len] = INLINE + len as u8;
        return &buf[..=len];
    }
    buf[..SCORE_BYTES].copy_from_slice(&score.to_le_bytes());
    buf[SCORE_BYTES] = FLOAT;
    &buf[..]
}

/// An entry's member and score, given the score before it.
fn decode(entry: &[u8], before: f64) -> (&[u8], f64) {
    let (&tag, rest) = entry.split_last().expect("a score's tag");
    let len = match tag {
        0..INLINE => 0,
        INLINE..FLOAT => usize::from(tag - INLINE),
        _ => SCORE_BYTES,
    };
    let (member, bytes) = rest.split_at(rest.len() - len);
    let mut buf = [0; SCORE_BYTES];
    buf[..len].copy_from_slice(bytes);
    let zigzag = match tag {
        0..INLINE => u64::from(tag),
        INLINE..FLOAT => u64::from_le_bytes(buf),
        _ => return (member, f64::from_le_bytes(buf)),
    };
    let difference = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
    // Written only after a whole score (see `encode_score`).
    (member, (before as i64 + difference) as f64)
}

/// The bytes an element takes in the run, after a score of `before`.
fn element_len(member: &[u8], score: f64, before: f64) -> usize {
    let score = encode_score(score, before, &mut [0; SCORE_BYTES + 1]).len();
    entry_len(member.len() + score)
}

/// The bytes an element takes in the run as the first.
#[cfg(test)]
pub fn packed_len(member: &[u8], score: f64) -> usize {
    element_len(member, score, 0.0)
}

/// At most the bytes adding `member` grows a run by: its own at the
/// longest, and the [`SCORE_BYTES`] more the score after it may then take.
pub fn most_added(member: &[u8]) -> usize {
    element_len(member, f64::MIN_POSITIVE, 0.0) + SCORE_BYTES
}

/// The bytes `pairs`, in order, take in a run.
pub fn run_len<'a>(pairs: impl Iterator<Item = (&'a [u8], f64)>) -> usize {
    let mut before = 0.0;
    pairs
        .map(|(member, score)| {
            let len = element_len(member, score, before);
            before = score;
            len
        })
        .sum()
}

/// One element as the walk finds it: where its entry starts and ends, and
/// the score before it.
#[derive(Clone, Copy)]
pub struct Pair<'a> {
    pub member: &'a [u8],
    pub score: f64,
    before: f64,
    start: usize,
    end: usize,
}

/// The elements of a run, in order.
#[derive(Clone)]
pub struct Pairs<'a> {
    bytes: &'a [u8],
    at: usize,
    before: f64,
}

impl<'a> Iterator for Pairs<'a> {
    type Item = Pair<'a>;

    fn next(&mut self) -> Option<Pair<'a>> {
        if self.at == self.bytes.len() {
            return None;
        }
        let start = self.at;
        let mut rest = &self.bytes[start..];
        // Written by `Packed::splice`, so always a whole varint and part.
        let len = decode_varint(&mut rest).expect("a packed length") as usize;
        let from = self.bytes.len() - rest.len();
        self.at = from + len;
        let before = self.before;
        let (member, score) = decode(&self.bytes[from..self.at], before);
        self.before = score;
        Some(Pair {
            member,
            score,
            before,
            start,
            end: self.at,
        })
    }
}

/// Where an element is, without a borrow of the run: its entry's bytes,
/// its score and the one before it.
#[derive(Clone, Copy)]
struct Held {
    start: usize,
    end: usize,
    score: f64,
    before: f64,
}

impl Held {
    fn of(pair: &Pair<'_>) -> Held {
        Held {
            start: pair.start,
            end: pair.end,
            score: pair.score,
            before: pair.before,
        }
    }
}

/// One element's entry, written for [`Packed::splice`].
fn entry(member: &[u8], score: f64, before: f64) -> Vec<u8> {
    let mut buf = [0; SCORE_BYTES + 1];
    let score = encode_score(score, before, &mut buf);
    let mut entry = Vec::with_capacity(member.len() + score.len());
    entry.extend_from_slice(member);
    entry.extend_from_slice(score);
    entry
}

#[derive(Debug, Default)]
pub struct Small {
    packed: Packed,
    /// The sum of the elements' [`element_encoded_len`], so that the size
    /// of a fetch of all of them is not a walk.
    encoded: u64,
}

impl Small {
    /// An empty set with room for `bytes` bytes of elements.
    pub fn with_room(bytes: usize) -> Small {
        Small {
            packed: Packed::with_room(bytes),
            encoded: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.packed.count()
    }

    /// What its buffer takes: a size class.
    pub fn cost(&self) -> u64 {
        self.packed.cost()
    }

    /// The bytes of all its elements in a fetch's answer.
    pub fn encoded(&self) -> u64 {
        self.encoded
    }

    /// The bytes its elements take in the run.
    #[cfg(test)]
    pub fn bytes_len(&self) -> usize {
        self.packed.bytes_len()
    }

    /// What its buffer's cost grows by to take `added` more bytes.
    pub fn growth(&self, added: usize) -> u64 {
        self.packed.growth(added)
    }

    pub fn iter(&self) -> Pairs<'_> {
        Pairs {
            bytes: self.packed.as_bytes(),
            at: 0,
            before: 0.0,
        }
    }

    /// The position of `member` and where it is.
    fn find(&self, member: &[u8]) -> Option<(usize, Pair<'_>)> {
        self.iter()
            .enumerate()
            .find(|(_, pair)| pair.member == member)
    }

    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.find(member).map(|(_, pair)| pair.score)
    }

    /// The ascending position of `member`.
    pub fn rank(&self, member: &[u8]) -> Option<usize> {
        self.find(member).map(|(at, _)| at)
    }

    /// How many elements score below `score` (or at most `score`, when
    /// `or_equal`).
    pub fn count_below(&self, score: f64, or_equal: bool) -> usize {
        let below = |held: f64| held < score || or_equal && held == score;
        self.iter().take_while(|pair| below(pair.score)).count()
    }

    /// The elements at ascending positions `start..end`.
    pub fn pairs(&self, start: usize, end: usize) -> impl Iterator<Item = (&[u8], f64)> + Clone {
        let pairs = self.iter().skip(start).take(end.saturating_sub(start));
        pairs.map(|pair| (pair.member, pair.score))
    }

    /// The bytes of the elements at positions `start..end` in a fetch's
    /// answer.
    pub fn weight(&self, start: usize, end: usize) -> u64 {
        let members = self.pairs(start, end).map(|(member, _)| member);
        members.map(element_encoded_len).sum()
    }

    /// Adds `member` (not held) after every element, where it belongs.
    pub fn append_sorted(&mut self, member: &[u8], score: f64) {
        let last = self.iter().last().map_or(0.0, |pair| pair.score);
        let end = self.packed.bytes_len();
        self.packed.insert_at(end, &[entry(member, score, last)]);
        self.encoded += element_encoded_len(member);
    }

    /// Replaces the `removed` entries at `range` with `elements`, in
    /// order, after a score of `before`.
    fn rewrite(
        &mut self,
        range: Range<usize>,
        removed: usize,
        elements: &[(&[u8], f64)],
        before: f64,
    ) {
        let mut before = before;
        let entries: Vec<Vec<u8>> = elements
            .iter()
            .map(|&(member, score)| {
                let written = entry(member, score, before);
                before = score;
                written
            })
            .collect();
        self.packed.splice(range, removed, &entries);
    }

    /// Takes out the element at `held`: the one after it (its score kept
    /// as a difference from the one before) is written again.
    fn take_out(&mut self, held: Held) {
        let next = Pairs {
            bytes: self.packed.as_bytes(),
            at: held.end,
            before: held.score,
        }
        .next()
        .map(|next| (next.member.to_vec(), next.score, next.end));
        match next {
            Some((member, score, end)) => {
                self.rewrite(held.start..end, 2, &[(&member, score)], held.before)
            }
            None => self.packed.remove_at(held.start..held.end, 1),
        }
    }

    /// Sets the score of `member`; true when it is new.
    pub fn set(&mut self, member: &[u8], score: f64) -> bool {
        let held = self.find(member).map(|(_, pair)| Held::of(&pair));
        if let Some(held) = held {
            if held.score == score {
                return false;
            }
            self.take_out(held);
            self.encoded -= element_encoded_len(member);
        }
        let after = |pair: &Pair| {
            pair.score
                .total_cmp(&score)
                .then_with(|| pair.member.cmp(member))
                .is_gt()
        };
        let next = self
            .iter()
            .find(after)
            .map(|next| (next.member.to_vec(), Held::of(&next)));
        match next {
            Some((next_member, next)) => {
                let elements = [(member, score), (&next_member[..], next.score)];
                self.rewrite(next.start..next.end, 1, &elements, next.before);
                self.encoded += element_encoded_len(member);
            }
            None => self.append_sorted(member, score),
        }
        held.is_none()
    }

    /// Removes `member`; true when it was held.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let Some(held) = self.find(member).map(|(_, pair)| Held::of(&pair)) else {
            return false;
        };
        self.take_out(held);
        self.encoded -= element_encoded_len(member);
        true
    }

    /// Gives back room once it holds under a quarter of it.
    pub fn fit(&mut self) {
        self.packed.fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_trip_in_few_bytes_when_whole() {
        // (score, the score before it, bytes with the tag)
        let cases: &[(f64, f64, usize)] = &[
            (0.0, 0.0, 1),
            (1.0, 0.0, 1),
            (-1.0, 0.0, 1),
            (119.0, 0.0, 1),
            (120.0, 0.0, 2),
            (-128.0, 0.0, 2),
            (128.0, 0.0, 3),
            (1_000_000.0, 0.0, 4),
            (1_000_001.0, 1_000_000.0, 1),
            (1_000_000.0, 1_000_000.0, 1),
            (-9_007_199_254_740_991.0, 0.0, 8),
            (9_007_199_254_740_991.0, -9_007_199_254_740_991.0, 8),
            (9_007_199_254_740_992.0, 0.0, 9),
            (3.0, 0.5, 9),
            (0.5, 0.0, 9),
            (f64::MAX, 0.0, 9),
            (-f64::MAX, 0.0, 9),
            (f64::MIN_POSITIVE, 0.0, 9),
        ];
        for &(score, before, len) in cases {
            let mut buf = [0; SCORE_BYTES + 1];
            let bytes = encode_score(score, before, &mut buf).to_vec();
            assert_eq!(bytes.len(), len, "{score} after {before}");
            let mut entry = b"member".to_vec();
            entry.extend_from_slice(&bytes);
            let (member, decoded) = decode(&entry, before);
            assert_eq!(member, b"member");
            assert_eq!(decoded.to_bits(), score.to_bits(), "{score} after {before}");
        }
    }

    /// Ten consecutive whole scores take a byte each after the first: the
    /// ten members `member:N` of a set take 153 bytes, the 160-byte class.
    #[test]
    fn close_whole_scores_take_a_byte() {
        let mut small = Small::default();
        for n in (100_000..100_010).rev() {
            small.set(format!("member:{n}").as_bytes(), f64::from(n));
        }
        assert_eq!(small.bytes_len(), 18 + 9 * 15);
        assert_eq!(small.cost(), 160);
        let scores: Vec<f64> = small.iter().map(|pair| pair.score).collect();
        assert_eq!(
            scores,
            (100_000..100_010).map(f64::from).collect::<Vec<_>>()
        );
    }

    /// Each element's score depends on the one before it: taking one out
    /// or putting one in between writes the next one again.
    #[test]
    fn changes_in_the_middle_keep_every_score() {
        let mut small = Small::default();
        let mut model = std::collections::BTreeMap::new();
        let scores = [5.0, 1.0, 3.0, 0.5, 1e9, -7.0, 3.0, 2.0, 1e300, 4.0];
        for (i, score) in scores.into_iter().enumerate() {
            let member = format!("m{}", i % 6);
            small.set(member.as_bytes(), score);
            model.insert(member, score);
            if i % 3 == 2 {
                let gone = format!("m{}", (i * 7) % 6);
                assert_eq!(small.remove(gone.as_bytes()), model.remove(&gone).is_some());
            }
            let mut expected: Vec<(String, f64)> = model.clone().into_iter().collect();
            expected.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
            let held: Vec<(String, f64)> = small
                .iter()
                .map(|p| (String::from_utf8(p.member.to_vec()).unwrap(), p.score))
                .collect();
            assert_eq!(held, expected);
            let entries: Vec<(&[u8], f64)> = small.pairs(0, small.len()).collect();
            assert_eq!(run_len(entries.into_iter()), small.bytes_len());
        }
    }
}

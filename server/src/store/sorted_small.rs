//! A small sorted set packed in one buffer (as Redis's listpack encoding of
//! a sorted set): each member, then its score, as two entries of a
//! [`Packed`] run, in the set's order (score, then member bytes). A member
//! costs its bytes and a length byte, a score one to nine bytes (see
//! [`encode_score`]), where the large form (`sorted_large.rs`) spends about
//! 150 bytes of structure per element.
//!
//! Every operation walks the run: O(n) for n elements, which the sorted
//! set bounds (`sorted_set::SMALL_MAX_ELEMENTS` of at most
//! `SMALL_MAX_MEMBER` bytes each), so a walk is a few hundred bytes.

use prost::encoding::decode_varint;

use super::packed::{entry_len, Packed};
use super::sorted_set::element_encoded_len;

/// The most bytes a score takes: an `f64`'s.
const SCORE_BYTES: usize = 8;

/// A score's bytes: an integer (as scores often are: counts, ids,
/// timestamps) below 2^53 in magnitude as its zigzag value in the fewest
/// little-endian bytes (none for 0), else the eight bytes of the `f64`.
/// The entry's length says which.
fn encode_score(score: f64, buf: &mut [u8; SCORE_BYTES]) -> &[u8] {
    let int = score as i64;
    if int as f64 == score && int.unsigned_abs() < 1 << 53 {
        let zigzag = ((int << 1) ^ (int >> 63)) as u64;
        let len = (u64::BITS - zigzag.leading_zeros()).div_ceil(8) as usize;
        buf[..len].copy_from_slice(&zigzag.to_le_bytes()[..len]);
        &buf[..len]
    } else {
        *buf = score.to_le_bytes();
        &buf[..]
    }
}

fn decode_score(bytes: &[u8]) -> f64 {
    let mut buf = [0; SCORE_BYTES];
    buf[..bytes.len()].copy_from_slice(bytes);
    if bytes.len() == SCORE_BYTES {
        return f64::from_le_bytes(buf);
    }
    let zigzag = u64::from_le_bytes(buf);
    ((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64)) as f64
}

/// The bytes an element takes in the run.
pub fn packed_len(member: &[u8], score: f64) -> usize {
    entry_len(member.len()) + entry_len(encode_score(score, &mut [0; SCORE_BYTES]).len())
}

/// One element as the walk finds it: where its two entries start and end.
#[derive(Clone, Copy)]
pub struct Pair<'a> {
    pub member: &'a [u8],
    pub score: f64,
    start: usize,
    end: usize,
}

/// The elements of a run, in order.
#[derive(Clone)]
pub struct Pairs<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Pairs<'a> {
    fn entry(&mut self) -> &'a [u8] {
        let mut rest = &self.bytes[self.at..];
        // Written by `Packed::insert_at`, so always a whole varint and part.
        let len = decode_varint(&mut rest).expect("a packed length") as usize;
        let start = self.bytes.len() - rest.len();
        self.at = start + len;
        &self.bytes[start..self.at]
    }
}

impl<'a> Iterator for Pairs<'a> {
    type Item = Pair<'a>;

    fn next(&mut self) -> Option<Pair<'a>> {
        if self.at == self.bytes.len() {
            return None;
        }
        let start = self.at;
        let member = self.entry();
        let score = decode_score(self.entry());
        Some(Pair {
            member,
            score,
            start,
            end: self.at,
        })
    }
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
        self.packed.count() / 2
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

    /// Adds `member` (not held) at its place in the order.
    pub fn append_sorted(&mut self, member: &[u8], score: f64) {
        let end = self.packed.bytes_len();
        self.insert_at(end, member, score);
    }

    fn insert_at(&mut self, offset: usize, member: &[u8], score: f64) {
        let mut buf = [0; SCORE_BYTES];
        let score = encode_score(score, &mut buf);
        self.packed.insert_at(offset, &[member, score]);
        self.encoded += element_encoded_len(member);
    }

    /// Sets the score of `member`; true when it is new.
    pub fn set(&mut self, member: &[u8], score: f64) -> bool {
        let held = self
            .find(member)
            .map(|(_, pair)| (pair.score, pair.start..pair.end));
        if let Some((held, range)) = held.clone() {
            if held == score {
                return false;
            }
            self.packed.remove_at(range, 2);
            self.encoded -= element_encoded_len(member);
        }
        let after = |pair: &Pair| {
            pair.score
                .total_cmp(&score)
                .then_with(|| pair.member.cmp(member))
                .is_gt()
        };
        let offset = self
            .iter()
            .find(after)
            .map_or(self.packed.bytes_len(), |pair| pair.start);
        self.insert_at(offset, member, score);
        held.is_none()
    }

    /// Removes `member`; true when it was held.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let Some(range) = self.find(member).map(|(_, pair)| pair.start..pair.end) else {
            return false;
        };
        self.packed.remove_at(range, 2);
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
        let cases: &[(f64, usize)] = &[
            (0.0, 0),
            (1.0, 1),
            (-1.0, 1),
            (127.0, 1),
            (-128.0, 1),
            (128.0, 2),
            (1_000_000.0, 3),
            (-9_007_199_254_740_991.0, 7),
            (9_007_199_254_740_992.0, 8),
            (0.5, 8),
            (f64::MAX, 8),
            (-f64::MAX, 8),
            (f64::MIN_POSITIVE, 8),
        ];
        for &(score, len) in cases {
            let mut buf = [0; SCORE_BYTES];
            let bytes = encode_score(score, &mut buf);
            assert_eq!(bytes.len(), len, "{score}");
            assert_eq!(decode_score(bytes).to_bits(), score.to_bits(), "{score}");
        }
    }
}

//! The SIEVE eviction queue of one shard (Zhang et al., "SIEVE is Simpler
//! than LRU", NSDI 2024), threaded through the shard's slab by slot index.
//!
//! Why SIEVE and not LRU: a hit only sets a `visited` bit, so a read never
//! reorders a list under the shard lock; on web-cache traces it misses less
//! often than LRU; and it is a FIFO plus a moving hand, little code to get
//! wrong. New items enter at the head; the hand walks from the tail towards
//! the head, clearing visited bits, and stops at the first unvisited item:
//! that is the victim. Items keep their place, so survivors stay behind the
//! hand and one-hit items (scans) are what the hand finds first.
//!
//! The links live inside the shard's entries ([`Arena`]), so the queue costs
//! no allocation of its own: 8 bytes per item, the visited bit included.

/// The "no slot" link. A link holds 31 bits (the 32nd is the visited bit),
/// so a shard can hold 2^31 - 1 items.
pub(super) const NIL: u32 = VISITED - 1;

/// The bit of [`Links::older`] that holds the visited bit: packing it there
/// keeps the links at 8 bytes, where a separate `bool` would pad them to 12.
const VISITED: u32 = 1 << 31;

/// The queue fields kept inside each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Links {
    /// Towards the head (newer items); the hand moves this way.
    newer: u32,
    /// Towards the tail (older items), and in the top bit the visited bit:
    /// set by a hit, cleared by the passing hand, the item's second chance.
    older: u32,
}

impl Links {
    pub(super) const DETACHED: Links = Links {
        newer: NIL,
        older: NIL,
    };

    fn new(newer: u32, older: u32) -> Links {
        Links { newer, older }
    }

    fn older(self) -> u32 {
        self.older & !VISITED
    }

    fn set_older(&mut self, older: u32) {
        self.older = older | (self.older & VISITED);
    }

    fn visited(self) -> bool {
        self.older & VISITED != 0
    }

    pub(super) fn visit(&mut self) {
        self.older |= VISITED;
    }

    fn clear_visited(&mut self) {
        self.older &= !VISITED;
    }
}

/// Where the queue finds an entry's links.
pub(super) trait Arena {
    fn links(&mut self, slot: u32) -> &mut Links;
}

#[derive(Debug)]
pub(super) struct Sieve {
    /// Newest item.
    head: u32,
    /// Oldest item; the hand restarts here after passing the head.
    tail: u32,
    hand: u32,
    len: usize,
}

impl Sieve {
    pub(super) fn new() -> Self {
        Sieve {
            head: NIL,
            tail: NIL,
            hand: NIL,
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn push(&mut self, arena: &mut impl Arena, slot: u32) {
        let old_head = self.head;
        *arena.links(slot) = Links::new(NIL, old_head);
        if old_head == NIL {
            self.tail = slot;
        } else {
            arena.links(old_head).newer = slot;
        }
        self.head = slot;
        self.len += 1;
    }

    pub(super) fn unlink(&mut self, arena: &mut impl Arena, slot: u32) {
        let links = *arena.links(slot);
        let (newer, older) = (links.newer, links.older());
        if newer == NIL {
            self.head = older;
        } else {
            arena.links(newer).set_older(older);
        }
        if older == NIL {
            self.tail = newer;
        } else {
            arena.links(older).newer = newer;
        }
        if self.hand == slot {
            self.hand = newer;
        }
        *arena.links(slot) = Links::DETACHED;
        self.len -= 1;
    }

    /// The next item to evict, never `exclude` (the item just written).
    /// The caller unlinks it, which moves the hand past it.
    pub(super) fn victim(&mut self, arena: &mut impl Arena, exclude: Option<u32>) -> Option<u32> {
        let mut steps = 2 * self.len + 1;
        self.victim_within(arena, exclude, &mut steps)
    }

    /// As [`Sieve::victim`], moving the hand at most `steps` items (counted
    /// down), so a caller can stop before the hand comes round again to
    /// items whose bits it cleared: those were read since its last pass.
    pub(super) fn victim_within(
        &mut self,
        arena: &mut impl Arena,
        exclude: Option<u32>,
        steps: &mut usize,
    ) -> Option<u32> {
        // One sweep clears every visited bit, so within two sweeps the hand
        // meets an unvisited item unless `exclude` is all there is.
        while *steps > 0 {
            *steps -= 1;
            let slot = if self.hand == NIL {
                self.tail
            } else {
                self.hand
            };
            if slot == NIL {
                return None;
            }
            let links = arena.links(slot);
            if Some(slot) == exclude {
                self.hand = links.newer;
            } else if links.visited() {
                links.clear_visited();
                self.hand = links.newer;
            } else {
                self.hand = slot;
                return Some(slot);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Arena for Vec<Links> {
        fn links(&mut self, slot: u32) -> &mut Links {
            &mut self[slot as usize]
        }
    }

    fn queue(n: u32) -> (Sieve, Vec<Links>) {
        let mut arena = vec![Links::DETACHED; n as usize];
        let mut sieve = Sieve::new();
        for slot in 0..n {
            sieve.push(&mut arena, slot);
        }
        (sieve, arena)
    }

    fn evict(sieve: &mut Sieve, arena: &mut Vec<Links>) -> Option<u32> {
        let slot = sieve.victim(arena, None)?;
        sieve.unlink(arena, slot);
        Some(slot)
    }

    #[test]
    fn unvisited_items_leave_in_insertion_order() {
        let (mut sieve, mut arena) = queue(3);
        assert_eq!(evict(&mut sieve, &mut arena), Some(0));
        assert_eq!(evict(&mut sieve, &mut arena), Some(1));
        assert_eq!(evict(&mut sieve, &mut arena), Some(2));
        assert_eq!(evict(&mut sieve, &mut arena), None);
        assert_eq!(sieve.len(), 0);
    }

    #[test]
    fn visited_items_get_a_second_chance_and_keep_their_place() {
        let (mut sieve, mut arena) = queue(4);
        arena[0].visit();
        arena[2].visit();
        assert_eq!(evict(&mut sieve, &mut arena), Some(1));
        assert_eq!(evict(&mut sieve, &mut arena), Some(3));
        // The hand wrapped to the tail; 0 and 2 lost their bits on the way.
        assert_eq!(evict(&mut sieve, &mut arena), Some(0));
        assert_eq!(evict(&mut sieve, &mut arena), Some(2));
    }

    #[test]
    fn all_visited_still_yields_a_victim() {
        let (mut sieve, mut arena) = queue(3);
        arena.iter_mut().for_each(Links::visit);
        assert_eq!(evict(&mut sieve, &mut arena), Some(0));
    }

    #[test]
    fn the_excluded_item_is_never_chosen() {
        let (mut sieve, mut arena) = queue(1);
        assert_eq!(sieve.victim(&mut arena, Some(0)), None);
        let (mut sieve, mut arena) = queue(2);
        assert_eq!(sieve.victim(&mut arena, Some(0)), Some(1));
    }

    #[test]
    fn unlinking_in_the_middle_keeps_the_queue_whole() {
        let (mut sieve, mut arena) = queue(3);
        sieve.unlink(&mut arena, 1);
        assert_eq!(evict(&mut sieve, &mut arena), Some(0));
        assert_eq!(evict(&mut sieve, &mut arena), Some(2));
        assert_eq!(evict(&mut sieve, &mut arena), None);
    }
}

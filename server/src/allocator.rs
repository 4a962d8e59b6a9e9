//! The allocator's own figures, read at each scrape of `/metrics`:
//! `jiffy_allocator_allocated_bytes` (bytes the program holds in live
//! allocations) and `jiffy_allocator_resident_bytes` (bytes of the
//! allocator's pages that are resident: live allocations, their size-class
//! rounding, metadata, and freed pages not yet returned to the OS), and
//! `jiffy_allocator_thread_cache_bytes` (freed blocks kept in the threads'
//! caches, which the first counts as allocated).
//!
//! The server binary allocates everything through jemalloc, so these are
//! the whole heap; beside `jiffy_memory_bytes` they say how far the store's
//! charges are from what its items really hold. jemalloc caches its
//! statistics: each scrape advances its `epoch` first, which refreshes them
//! (a few microseconds, under a lock jemalloc takes only for that).
//!
//! Also what active defragmentation (`crate::defrag`) asks of jemalloc: the
//! free room in its partly used slabs (`jiffy_allocator_slab_free_bytes`)
//! and, for one allocation, whether its slab is emptier than its size
//! class's average.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;

use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::{IntCounter, IntGauge};
use tikv_jemalloc_ctl::{epoch, raw, stats};

/// Set by the server binary, whose global allocator is jemalloc; a test
/// binary's is the system's, whose allocations jemalloc must not be asked
/// about.
static GLOBAL: AtomicBool = AtomicBool::new(false);

/// Says that jemalloc is the process's global allocator (the server binary
/// does, before anything else).
pub fn declare_global() {
    GLOBAL.store(true, Relaxed);
}

/// Whether [`declare_global`] was called.
pub fn is_global() -> bool {
    GLOBAL.load(Relaxed)
}

/// `MALLCTL_ARENAS_ALL`: the statistics of every arena merged.
const ALL_ARENAS: usize = 4096;

/// The small size classes, looked up once: each one's region and slab size,
/// and the controls of its slabs and regions in use, by number rather than
/// by name (a name is parsed at every call, 30 times the cost).
struct SlabClasses {
    /// Per class: (region size, slab size).
    sizes: Vec<(usize, usize)>,
    /// `stats.arenas.<ALL_ARENAS>.bins.<class>.curslabs`, class at [4].
    slabs: [usize; 6],
    /// The same for `curregs`.
    regions: [usize; 6],
}

impl SlabClasses {
    fn look_up() -> Option<SlabClasses> {
        // SAFETY: each control named has the type read (jemalloc's manual).
        let read = |name: String| unsafe { raw::read::<usize>((name + "\0").as_bytes()) }.ok();
        // SAFETY: `arenas.nbins` is an `unsigned`.
        let classes: u32 = unsafe { raw::read(b"arenas.nbins\0") }.ok()?;
        let sizes = (0..classes)
            .map(|class| {
                let size = read(format!("arenas.bin.{class}.size"))?;
                Some((size, read(format!("arenas.bin.{class}.slab_size"))?))
            })
            .collect::<Option<Vec<_>>>()?;
        let mib = |name: &str| {
            let mut mib = [0; 6];
            let name = format!("stats.arenas.{ALL_ARENAS}.bins.0.{name}\0");
            raw::name_to_mib(name.as_bytes(), &mut mib).ok()?;
            Some(mib)
        };
        Some(SlabClasses {
            sizes,
            slabs: mib("curslabs")?,
            regions: mib("curregs")?,
        })
    }

    fn free_bytes(&self) -> Option<u64> {
        let (mut slabs, mut regions) = (self.slabs, self.regions);
        let mut free = 0u64;
        for (class, (size, slab)) in self.sizes.iter().enumerate() {
            (slabs[4], regions[4]) = (class, class);
            // SAFETY: both controls are `size_t`s.
            let in_use: usize = unsafe { raw::read_mib(&slabs) }.ok()?;
            // SAFETY: as above.
            let live: usize = unsafe { raw::read_mib(&regions) }.ok()?;
            free += (in_use * slab).saturating_sub(live * size) as u64;
        }
        Some(free)
    }
}

/// Bytes of free regions in the slabs of the small size classes that still
/// hold a live allocation: room jemalloc keeps resident that only an
/// allocation of the same size class can use. Read from its statistics as
/// last refreshed (an `epoch` advance); `None` if it cannot answer.
pub fn slab_free_bytes() -> Option<u64> {
    static CLASSES: OnceLock<Option<SlabClasses>> = OnceLock::new();
    CLASSES
        .get_or_init(SlabClasses::look_up)
        .as_ref()?
        .free_bytes()
}

/// Turns off the calling thread's cache of freed regions, so that what it
/// allocates comes from a slab and what it frees goes back to its slab at
/// once: a region taken from the cache could be in the very slab being
/// emptied.
pub fn bypass_thread_cache() -> bool {
    // SAFETY: `thread.tcache.enabled` is a `bool`.
    unsafe { raw::write(b"thread.tcache.enabled\0", false) }.is_ok()
}

/// What `experimental.utilization.query` answers about one allocation.
#[repr(C)]
#[derive(Default)]
struct Utilization {
    /// The slab the size class's next allocation comes from (null when
    /// every slab of the class is full).
    next_slab: usize,
    free: usize,
    regions: usize,
    /// Of the allocation's slab, in bytes.
    slab_size: usize,
    class_free: usize,
    class_regions: usize,
}

/// Asks jemalloc where an allocation lies (`experimental.utilization.query`,
/// looked up once).
///
/// Why by hand: no crate wraps this control (tikv-jemalloc-ctl reads and
/// writes one type; this one takes a pointer and answers six words).
pub struct SlabQuery {
    mib: [usize; 3],
}

impl SlabQuery {
    /// `None` when jemalloc has no such control.
    pub fn new() -> Option<SlabQuery> {
        let mut mib = [0usize; 3];
        let mut len = mib.len();
        let name = b"experimental.utilization.query\0";
        // SAFETY: a NUL-terminated name and room for `len` mib entries.
        let found = unsafe {
            tikv_jemalloc_sys::mallctlnametomib(name.as_ptr().cast(), mib.as_mut_ptr(), &mut len)
        };
        (found == 0 && len == mib.len()).then_some(SlabQuery { mib })
    }

    /// Whether the allocation at `at` (from jemalloc, live) is better moved:
    /// its slab has free regions, is not the one its class allocates from
    /// next, and is less full than the class's slabs on average. A copy
    /// then lands in a fuller slab, and the emptiest slabs empty out and
    /// go back to the OS.
    pub fn is_sparse(&self, at: *const u8) -> bool {
        let mut out = Utilization::default();
        let mut out_len = size_of::<Utilization>();
        let mut input = at.cast::<c_void>();
        // SAFETY: the control's documented input (one pointer) and output
        // (`Utilization`'s six words); jemalloc zeroes the output for a
        // pointer it does not know.
        let answered = unsafe {
            tikv_jemalloc_sys::mallctlbymib(
                self.mib.as_ptr(),
                self.mib.len(),
                (&mut out as *mut Utilization).cast(),
                &mut out_len,
                (&mut input as *mut *const c_void).cast(),
                size_of::<*const c_void>(),
            )
        };
        if answered != 0 || out.next_slab == 0 || out.regions <= 1 || out.free == 0 {
            return false;
        }
        let address = at as usize;
        if (out.next_slab..out.next_slab + out.slab_size).contains(&address) {
            return false;
        }
        let used = (out.regions - out.free) as u128;
        let class_used = out.class_regions.saturating_sub(out.class_free) as u128;
        used * (out.class_regions as u128) < class_used * (out.regions as u128)
    }
}

/// Both gauges, refreshed from jemalloc whenever they are collected.
pub struct AllocatorStats {
    allocated: IntGauge,
    resident: IntGauge,
    thread_cache: IntGauge,
    slab_free: IntGauge,
    defrag_moves: IntCounter,
}

impl AllocatorStats {
    pub fn new() -> AllocatorStats {
        let gauge = |name: &str, help: &str| IntGauge::new(name, help).expect("valid metric");
        AllocatorStats {
            allocated: gauge(
                "allocator_allocated_bytes",
                "Bytes in live allocations, as jemalloc counts them",
            ),
            resident: gauge(
                "allocator_resident_bytes",
                "Bytes of jemalloc's pages that are resident (allocations, rounding, metadata, freed pages not yet returned)",
            ),
            thread_cache: gauge(
                "allocator_thread_cache_bytes",
                "Bytes of freed blocks jemalloc keeps in its threads' caches for their next allocations (counted as allocated)",
            ),
            slab_free: gauge(
                "allocator_slab_free_bytes",
                "Bytes of free room in jemalloc's partly used slabs of small allocations, which active defragmentation gives back",
            ),
            defrag_moves: IntCounter::new(
                "defrag_moves_total",
                "Items moved out of a mostly empty slab by active defragmentation",
            )
            .expect("valid metric"),
        }
    }

    /// Refreshes the gauges from jemalloc; leaves them as they were if it
    /// cannot answer (it always can when built with statistics).
    fn refresh(&self) {
        if epoch::advance().is_err() {
            return;
        }
        if let (Ok(allocated), Ok(resident)) = (stats::allocated::read(), stats::resident::read()) {
            self.allocated.set(allocated as i64);
            self.resident.set(resident as i64);
        }
        // SAFETY: `stats.arenas.<i>.tcache_bytes` is a `size_t`.
        let cached = unsafe { raw::read::<usize>(b"stats.arenas.4096.tcache_bytes\0") };
        if let Ok(cached) = cached {
            self.thread_cache.set(cached as i64);
        }
        if let Some(free) = slab_free_bytes() {
            self.slab_free.set(free as i64);
        }
        let moves = crate::defrag::moves();
        self.defrag_moves
            .inc_by(moves.saturating_sub(self.defrag_moves.get()));
    }
}

impl Default for AllocatorStats {
    fn default() -> Self {
        Self::new()
    }
}

impl Collector for AllocatorStats {
    fn desc(&self) -> Vec<&Desc> {
        let mut descs = self.allocated.desc();
        descs.extend(self.resident.desc());
        descs.extend(self.thread_cache.desc());
        descs.extend(self.slab_free.desc());
        descs.extend(self.defrag_moves.desc());
        descs
    }

    fn collect(&self) -> Vec<MetricFamily> {
        self.refresh();
        let mut families = self.allocated.collect();
        families.extend(self.resident.collect());
        families.extend(self.thread_cache.collect());
        families.extend(self.slab_free.collect());
        families.extend(self.defrag_moves.collect());
        families
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held by each test that allocates through jemalloc: they read
    /// jemalloc's process-wide counts, which another's allocations, frees
    /// or cache flush would move meanwhile.
    static JEMALLOC: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn sample(families: &[MetricFamily], name: &str) -> f64 {
        let family = families.iter().find(|f| f.name() == name).unwrap();
        family.get_metric()[0].get_gauge().get_value()
    }

    /// In a test binary the global allocator is the system's, so jemalloc
    /// holds only what is allocated through it here: a buffer of known size.
    #[test]
    fn counts_what_is_allocated_through_jemalloc() {
        let _alone = JEMALLOC.lock().unwrap_or_else(|e| e.into_inner());
        use std::alloc::{GlobalAlloc, Layout};
        let stats = AllocatorStats::new();
        let before = sample(&stats.collect(), "allocator_allocated_bytes");
        let layout = Layout::from_size_align(8 << 20, 8).unwrap();
        let jemalloc = tikv_jemallocator::Jemalloc;
        // SAFETY: a non-zero layout, freed below with the same layout.
        let buffer = unsafe { jemalloc.alloc(layout) };
        assert!(!buffer.is_null());
        let families = stats.collect();
        let allocated = sample(&families, "allocator_allocated_bytes");
        let resident = sample(&families, "allocator_resident_bytes");
        // SAFETY: allocated above with this layout.
        unsafe { jemalloc.dealloc(buffer, layout) };
        assert!(
            allocated - before >= (8 << 20) as f64,
            "allocated {before} -> {allocated}"
        );
        assert!(allocated > 0.0 && resident > 0.0);
        // Resident pages are only touched ones, so an untouched buffer may
        // not be resident; allocated can pass resident here and nowhere a
        // program writes what it allocates (the server test checks that).
    }

    /// Regions of one small class allocated through jemalloc (not the test
    /// binary's global allocator), most of the first half freed: the few
    /// left there sit in slabs far emptier than the class's average, and
    /// the second half's in full ones.
    #[test]
    fn a_slab_emptier_than_its_class_is_sparse_and_a_full_one_is_not() {
        let _alone = JEMALLOC.lock().unwrap_or_else(|e| e.into_inner());
        use std::alloc::{GlobalAlloc, Layout};
        assert!(bypass_thread_cache());
        let query = SlabQuery::new().expect("stock jemalloc answers the query");
        let jemalloc = tikv_jemallocator::Jemalloc;
        // 1,000 bytes: the 1024-byte class, four regions a slab, which
        // nothing else in this test binary allocates through jemalloc.
        let layout = Layout::from_size_align(1000, 8).unwrap();
        // SAFETY: a non-zero layout; each region is freed below, once.
        let regions: Vec<*mut u8> = (0..4096)
            .map(|_| unsafe { jemalloc.alloc(layout) })
            .collect();
        let (first, second) = regions.split_at(2048);
        let (kept, freed): (Vec<_>, Vec<_>) =
            first.iter().enumerate().partition(|(n, _)| n % 16 == 0);
        let free_room = || {
            epoch::advance().unwrap();
            slab_free_bytes().expect("jemalloc answers")
        };
        let room_before = free_room();
        for (_, region) in freed {
            // SAFETY: allocated above with this layout, freed once.
            unsafe { jemalloc.dealloc(*region, layout) };
        }
        // A slab of four keeps one region in four slabs: its other three
        // are free room, and the three slabs emptied are gone (other test
        // threads allocate through jemalloc too, a little).
        let room = free_room() - room_before;
        let expected = kept.len() as u64 * 3 * 1024;
        assert!(
            room >= expected * 9 / 10 && room <= expected * 11 / 10,
            "{room} bytes of room, {expected} expected"
        );
        let sparse = kept
            .iter()
            .filter(|(_, region)| query.is_sparse(**region))
            .count();
        let full = second[..second.len() - 8]
            .iter()
            .filter(|region| query.is_sparse(**region))
            .count();
        for region in kept.iter().map(|(_, region)| *region).chain(second) {
            // SAFETY: allocated above with this layout, freed once.
            unsafe { jemalloc.dealloc(*region, layout) };
        }
        // All but any in the slab the class allocates from next.
        assert!(
            sparse >= kept.len() - 1,
            "{sparse} of {} sparse",
            kept.len()
        );
        assert_eq!(full, 0);
    }
}

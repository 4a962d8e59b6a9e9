//! The allocator's own figures, read at each scrape of `/metrics`:
//! `jiffy_allocator_allocated_bytes` (bytes the program holds in live
//! allocations) and `jiffy_allocator_resident_bytes` (bytes of the
//! allocator's pages that are resident: live allocations, their size-class
//! rounding, metadata, and freed pages not yet returned to the OS).
//!
//! The server binary allocates everything through jemalloc, so these are
//! the whole heap; beside `jiffy_memory_bytes` they say how far the store's
//! charges are from what its items really hold. jemalloc caches its
//! statistics: each scrape advances its `epoch` first, which refreshes them
//! (a few microseconds, under a lock jemalloc takes only for that).

use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::IntGauge;
use tikv_jemalloc_ctl::{epoch, stats};

/// Both gauges, refreshed from jemalloc whenever they are collected.
pub struct AllocatorStats {
    allocated: IntGauge,
    resident: IntGauge,
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
        descs
    }

    fn collect(&self) -> Vec<MetricFamily> {
        self.refresh();
        let mut families = self.allocated.collect();
        families.extend(self.resident.collect());
        families
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(families: &[MetricFamily], name: &str) -> f64 {
        let family = families.iter().find(|f| f.name() == name).unwrap();
        family.get_metric()[0].get_gauge().get_value()
    }

    /// In a test binary the global allocator is the system's, so jemalloc
    /// holds only what is allocated through it here: a buffer of known size.
    #[test]
    fn counts_what_is_allocated_through_jemalloc() {
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
}

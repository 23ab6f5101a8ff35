//! The counting allocator behind the memory cap: it counts live heap bytes, so that the driver
//! can report what one input held at once, and refuses an allocation past a hard limit (the
//! watchdog of [`crate::cli`] then saves the input and aborts).
//!
//! A `#[global_allocator]` has to be declared in each binary; a fuzz binary declares
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: lightprov_fuzz::alloc::Counting = lightprov_fuzz::alloc::Counting;
//! ```
//!
//! and [`crate::cli::run`] refuses to fuzz when it is missing (the cap would not hold).

// A global allocator is unsafe by nature; this is the crate's only unsafe code, and it forwards
// to the system allocator.
#![allow(unsafe_code)]

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicUsize, Ordering::Relaxed},
    time::Duration,
};

/// Live heap bytes.
pub(crate) static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Most live bytes since the input began.
pub(crate) static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Refuse allocations past this (usize::MAX outside inputs).
pub(crate) static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set when an allocation was refused: the watchdog saves the input and aborts.
pub(crate) static REFUSED: AtomicUsize = AtomicUsize::new(0);

/// Counts live bytes. An input that holds more than the cap is reported after it returns (the
/// driver compares its peak); one that asks for more than [`HARD_FACTOR`] times the cap is
/// stopped at that allocation: the allocating thread waits while the watchdog saves the input
/// and aborts the process.
#[derive(Clone, Copy, Debug)]
pub struct Counting;

/// The hard limit, as a multiple of the cap.
pub const HARD_FACTOR: usize = 8;

impl Counting {
    fn reserve(size: usize) -> bool {
        let now = LIVE.fetch_add(size, Relaxed).saturating_add(size);
        if now > LIMIT.load(Relaxed) {
            LIVE.fetch_sub(size, Relaxed);
            REFUSED.store(size.max(1), Relaxed);
            // No allocation from here on: the watchdog does the rest.
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        PEAK.fetch_max(now, Relaxed);
        true
    }

    /// Counts `layout`'s bytes, then allocates them with `alloc` (uncounted again if it fails).
    fn counted(layout: Layout, alloc: impl FnOnce() -> *mut u8) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = alloc();
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

// SAFETY: every call forwards to `System` with the caller's layout and pointer; the counters
// are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        Self::counted(layout, || unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        Self::counted(layout, || unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !Self::reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                LIVE.fetch_sub(new_size - old, Relaxed);
            }
        } else if new_size < old {
            LIVE.fetch_sub(old - new_size, Relaxed);
        }
        p
    }
}

/// Whether the binary declared [`Counting`] as its global allocator: a heap allocation moves
/// the count of live bytes.
pub fn installed() -> bool {
    let before = LIVE.load(Relaxed);
    let probe = std::hint::black_box(vec![0u8; 4096]);
    let moved = LIVE.load(Relaxed) != before;
    drop(probe);
    moved
}

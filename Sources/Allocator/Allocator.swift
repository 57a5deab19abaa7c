import CMalloc

/// glibc's allocator, tuned where the server's memory use needs it: the only code that calls
/// into `<malloc.h>`.
public enum Allocator {
    /// Keeps blocks of 128 KiB and more in their own mappings, returned to the system when freed.
    ///
    /// glibc otherwise raises that threshold each time such a block is freed, up to 32 MiB, and
    /// later large blocks come from the heap, whose freed memory it keeps: every new version
    /// compresses its pages (brotli's encoder takes several MiB at a time), and the server's
    /// private memory grew by 5.7 MB over bench/leak.py's rounds (+1.4 MB with the threshold
    /// fixed; bench/MEMORY.md). Setting the threshold turns the adjustment off.
    public static func keepLargeAllocationsReturnable() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
    }

    /// Gives the free pages of every arena back to the system (`malloc_trim(0)`): for after work
    /// that spread large short-lived blocks over the per-thread arenas, which keep them after free.
    public static func returnFreePages() {
        _ = malloc_trim(0)
    }
}

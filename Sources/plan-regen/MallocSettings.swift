#if canImport(CGlibcMalloc)
import CGlibcMalloc
#endif

/// glibc's malloc, told to keep freed memory for the next batch instead of handing it back
/// to the kernel.
///
/// Why: every batch allocates a few megabytes (its users, their JSON, the COPY buffers,
/// libpq's results) and frees them when it is written. By default glibc returns freed
/// memory above a moving threshold to the kernel (and maps large blocks afresh), so the
/// next batch faults the same pages in again, a noticeable share of the job's CPU. Blocks
/// up to 32 MB are taken from the heap and up to 256 MB kept free in it.
/// Peak memory stays what the largest batch needs: the kept memory is reused, not added.
enum MallocSettings {
    static func keepFreedMemoryForReuse() {
        #if canImport(CGlibcMalloc)
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
        #endif
    }
}

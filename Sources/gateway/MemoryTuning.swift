#if canImport(Glibc)
import Glibc
#endif

/// How the process asks glibc's allocator to give large blocks back.
///
/// glibc serves a large `malloc` with its own mapping and unmaps it on `free`, but after the
/// first such free it raises that threshold to the freed size (up to 32 MiB) and serves later
/// blocks of that size from a thread's arena, which keeps them after `free`. A gateway's large
/// blocks are passing ones: each password hash's 19 MiB of Argon2 memory, the demo seed and
/// catalog imports. Measured with the release build under one contract-fuzzing pass as admin
/// (docs/operations.md, "Memory"): resident memory went from 95 to 139 MiB and stayed; with the
/// threshold fixed at 1 MiB, from 73 to 88 MiB. Fixing it turns the dynamic raise off, so
/// every block of 1 MiB or more is mapped and unmapped. Operators can still override it with
/// `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...`, which glibc reads first.
enum MemoryTuning {
    /// The size from which blocks are mapped on their own, then given back on `free`.
    static let largeBlockBytes: Int32 = 1 << 20

    /// Fixes the threshold unless the environment already set one. Returns whether it did.
    @discardableResult
    static func returnLargeBlocksToTheSystem(environment: [String: String]) -> Bool {
        #if canImport(Glibc)
        if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("mmap_threshold") { return false }
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil { return false }
        // mallopt(M_MMAP_THRESHOLD, ...); <malloc.h> is not in the Glibc module, so by name.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mMmapThreshold: Int32 = -3
        return unsafeBitCast(symbol, to: Mallopt.self)(mMmapThreshold, largeBlockBytes) == 1
        #else
        return false
        #endif
    }
}

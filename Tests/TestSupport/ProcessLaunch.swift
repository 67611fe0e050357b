public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts child processes for the tests, working around a Foundation crash on Linux.
///
/// `Process.run()` (swift-corelibs-foundation before #5472, so Swift 6.3.1) scans
/// `/proc/self/fd` and copies 256 bytes of every entry's name. With many descriptors open (a
/// parallel test run), the last entry can sit at the end of glibc's 32 KiB readdir buffer, and
/// the copy crosses into an unmapped page: signal 11 in the test process, about one run in
/// five (the CI crash at stop 29). Serializing launches does not help. Here, before the first
/// launch, this process has glibc mmap every allocation of 32 KiB and more: that buffer then
/// always has the rest of its last page after it. Children are not affected.
public enum ProcessLaunch {
    private static let tuned: Bool = {
        #if canImport(Glibc)
        // mallopt(M_MMAP_THRESHOLD, 32 KiB); <malloc.h> is not in the Glibc module, so by name.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mMmapThreshold: Int32 = -3
        return unsafeBitCast(symbol, to: Mallopt.self)(mMmapThreshold, 32 * 1024) == 1
        #else
        return true
        #endif
    }()

    /// Whether the allocator took the setting (glibc answers 1).
    public static var allocatorTuned: Bool { tuned }

    /// `process.run()`, once this process's allocator is tuned as above.
    public static func run(_ process: Process) throws {
        _ = tuned
        try process.run()
    }
}

#if canImport(Glibc)
import Glibc
#endif
// Release builds on Linux resolve `struct stat` and `stat()` through Dispatch's C module; with
// MemberImportVisibility the file must import it by name.
#if canImport(CDispatch)
import CDispatch
#endif
#if canImport(Glibc)
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Which version of a file was read: a replaced file (rename) has another inode, an edited
/// one another size or modification time.
struct VaultFileFingerprint: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int64(info.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        #endif
    }
}

/// The few system calls the key file needs, each failure a `VaultKeyStoreError` naming the
/// path and the call (never the content).
enum VaultPOSIX {
    static let maximumKeyFileBytes = 64 * 1024
    static let ownerOnly: UInt32 = 0o600

    /// Reads a key file, refusing anything but a regular file with no group or other permissions.
    static func readPrivateFile(_ path: String) throws -> (Data, VaultFileFingerprint) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "open") }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "fstat") }
        let mode = UInt32(info.st_mode)
        guard mode & 0o170000 == 0o100000 else { throw VaultKeyStoreError.notARegularFile(path: path) }
        guard mode & 0o077 == 0 else { throw VaultKeyStoreError.insecureKeyFile(path: path, mode: mode & 0o7777) }
        guard Int(info.st_size) <= maximumKeyFileBytes else {
            throw VaultKeyStoreError.malformedKeyFile(path: path, line: 0, reason: "the file is larger than 64 KiB")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, "read")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= maximumKeyFileBytes else {
                throw VaultKeyStoreError.malformedKeyFile(path: path, line: 0, reason: "the file is larger than 64 KiB")
            }
        }
        return (data, VaultFileFingerprint(info))
    }

    /// The fingerprint of the file now at `path`.
    static func fingerprint(_ path: String) throws -> VaultFileFingerprint {
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, "stat") }
        return VaultFileFingerprint(info)
    }

    /// Writes `contents` to a new temporary file beside `path`, created with
    /// `open(O_CREAT | O_EXCL, 0600)` (so it is never readable by others, not even briefly) and
    /// synced. Returns its path; the caller links or renames it into place.
    static func writeTemporary(beside path: String, contents: Data) throws -> String {
        let temporary = "\(path).tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(ownerOnly))
        guard fd >= 0 else { throw failure(temporary, "create") }
        do {
            defer { _ = close(fd) }
            var info = stat()
            // The umask can only take bits away; put back exactly 0600 before any byte is written.
            if fstat(fd, &info) == 0, UInt32(info.st_mode) & 0o7777 != ownerOnly {
                guard fchmod(fd, mode_t(ownerOnly)) == 0 else { throw failure(temporary, "fchmod") }
            }
            try writeAll(fd, contents, path: temporary)
            guard fsync(fd) == 0 else { throw failure(temporary, "fsync") }
        } catch {
            _ = unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Creates `path` with `contents` only if nothing is there: a complete temporary file is
    /// hard-linked into place, so no reader ever sees a partial key file.
    /// - Returns: false when the file already existed.
    static func createExclusively(_ path: String, contents: Data) throws -> Bool {
        let temporary = try writeTemporary(beside: path, contents: contents)
        defer { _ = unlink(temporary) }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return false }
            throw failure(path, "link")
        }
        try syncDirectory(of: path)
        return true
    }

    /// Replaces `path` with `contents` atomically (temporary file, fsync, rename, directory fsync).
    static func replace(_ path: String, contents: Data) throws {
        let temporary = try writeTemporary(beside: path, contents: contents)
        guard rename(temporary, path) == 0 else {
            let error = failure(path, "rename")
            _ = unlink(temporary)
            throw error
        }
        try syncDirectory(of: path)
    }

    /// Takes an exclusive, non-blocking `flock` on `lockPath` (created 0600). Nil when another
    /// process holds it. Closing the descriptor releases it.
    static func tryLock(_ lockPath: String) throws -> Int32? {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode_t(ownerOnly))
        guard fd >= 0 else { throw failure(lockPath, "open") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            _ = close(fd)
            if code == EWOULDBLOCK { return nil }
            throw VaultKeyStoreError.io(path: lockPath, operation: "flock", errno: code)
        }
        return fd
    }

    static func unlock(_ fd: Int32) {
        _ = close(fd)
    }

    private static func writeAll(_ fd: Int32, _ contents: Data, path: String) throws {
        try contents.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, "write")
                }
                offset += written
            }
        }
    }

    private static func syncDirectory(of path: String) throws {
        let directory = path.lastIndex(of: "/").map { slash in slash == path.startIndex ? "/" : String(path[..<slash]) } ?? "."
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(directory, "open directory") }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw failure(directory, "fsync directory") }
    }

    private static func failure(_ path: String, _ operation: String) -> VaultKeyStoreError {
        .io(path: path, operation: operation, errno: errno)
    }
}

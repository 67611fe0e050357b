#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Log lines on their way to a file descriptor (standard error), written in batches by a
/// background thread instead of one `write` per line under a lock on the request path.
///
/// Lines are appended to a buffer; the writer thread writes it every `interval` (100 ms) or as
/// soon as it holds `batchBytes` (64 KiB). ``flush()`` writes what is buffered before it returns:
/// lines at `error` and above are flushed at once, and the server flushes when it stops. A
/// crash can lose at most the last `interval` of lines below `error`. If the writer falls far
/// behind (`limitBytes`, 8 MiB buffered), appenders write themselves, so memory stays bounded
/// and no line is dropped.
public final class BufferedLogOutput: Sendable {
    /// Standard error, shared by every handler of the process.
    public static let standardError = BufferedLogOutput(fileDescriptor: 2)

    let fileDescriptor: Int32
    let interval: Double
    let batchBytes: Int
    let limitBytes: Int
    private let pending = Mutex<[UInt8]>([])
    /// Held while writing, so batches reach the descriptor in the order they were taken.
    private let writing = Mutex<Void>(())
    private let wake = DispatchSemaphore(value: 0)

    public init(fileDescriptor: Int32, interval: Double = 0.1, batchBytes: Int = 64 << 10, limitBytes: Int = 8 << 20) {
        self.fileDescriptor = fileDescriptor
        self.interval = interval
        self.batchBytes = batchBytes
        self.limitBytes = limitBytes
        // The thread holds the output weakly: an output nobody uses any more (a test's) lets its
        // thread end after the next interval.
        let thread = Thread { [weak self] in
            while let output = self {
                _ = output.wake.wait(timeout: .now() + output.interval)
                output.flush()
            }
        }
        thread.name = "log-writer"
        thread.start()
    }

    /// Adds one line (with its newline).
    public func append(_ line: String) {
        var line = line
        let (size, over) = line.withUTF8 { bytes in
            pending.withLock { buffer -> (Int, Bool) in
                buffer.append(contentsOf: bytes)
                return (buffer.count, buffer.count >= limitBytes)
            }
        }
        if over {
            flush()
        } else if size >= batchBytes {
            wake.signal()
        }
    }

    /// Writes everything appended so far before returning.
    public func flush() {
        writing.withLock { _ in
            let batch = pending.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            write(batch)
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return // the descriptor is gone: nothing sensible to do with log lines
                }
            }
        }
    }
}

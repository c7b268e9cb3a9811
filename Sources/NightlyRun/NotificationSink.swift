import LineOutput
import Synchronization

/// Where notification JSON lines go when they are written, not posted: stdout (default,
/// "handed to the kernel") or a file given by `--notifications FILE`, opened for
/// appending (`LineWriter`) and synced to disk by every `emit`. `emit` returns only once
/// the destination has the bytes, because the outbox marks the lines emitted right after;
/// a write error is thrown as `RunError`, and the lines stay pending. A line a
/// killed run left half-written is skipped by consumers; its notification is emitted
/// again whole, because its batch was never marked emitted.
///
/// Workers share one sink: `emit` holds a lock, so the calls are counted in order.
public final class NotificationSink: Sendable {
    let output: LineWriter
    private let emitting = Mutex(Emitting())

    private struct Emitting {
        #if PLAN_REGEN_FAULT_INJECTION
        var fault: FaultInjection?
        #endif
        var calls = 0
    }

    #if PLAN_REGEN_FAULT_INJECTION
    /// TEST-ONLY (`PLAN_REGEN_FAULT`, debug builds): kills the process at one call of `emit`.
    public var fault: FaultInjection? {
        get { emitting.withLock { $0.fault } }
        set { emitting.withLock { $0.fault = newValue } }
    }
    #endif

    public init(_ output: LineWriter) {
        self.output = output
    }

    public static func standardOutput() -> NotificationSink {
        NotificationSink(.standardOutput())
    }

    public static func appending(toFile path: String) throws -> NotificationSink {
        do {
            return NotificationSink(try .appending(toFile: path, durable: true))
        } catch let error as LineWriterError {
            throw RunError.notificationFile(path: path, reason: error.reason)
        }
    }

    /// Writes each line followed by a newline. Throws on a write error (a closed pipe, a
    /// full disk) so the caller leaves the lines pending in the outbox.
    public func emit(_ lines: [String]) throws {
        try emit(lines: LineWriter.bytes(ofLines: lines))
    }

    /// Writes `bytes`: whole lines, each ending in a line feed (a batch's lines as
    /// `BatchWrite.notificationLines` holds them). Throws as `emit(_:)`.
    public func emit(lines bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        do {
            try emitting.withLock { state in
                state.calls += 1
                #if PLAN_REGEN_FAULT_INJECTION
                let injected = state.fault.flatMap { $0.call == state.calls ? $0 : nil }
                if injected?.point == .beforeEmit { injected?.killProcess() }
                if injected?.point == .midEmit {
                    try output.emit(lines: Array(bytes[..<Self.endOfFirstHalf(ofLines: bytes)]))
                    injected?.killProcess()
                }
                try output.emit(lines: bytes)
                if injected?.point == .afterEmit { injected?.killProcess() }
                #else
                try output.emit(lines: bytes)
                #endif
            }
        } catch let error as LineWriterError {
            throw RunError.notificationWrite(destination: output.destination, reason: error.reason)
        }
    }

    #if PLAN_REGEN_FAULT_INJECTION
    /// Where the first half of the lines in `bytes` ends (after the line feed of line
    /// n / 2 of n), for the `midEmit` fault.
    private static func endOfFirstHalf(ofLines bytes: [UInt8]) -> Int {
        let ends = bytes.indices.filter { bytes[$0] == 0x0A }
        return ends.count / 2 == 0 ? 0 : ends[ends.count / 2 - 1] + 1
    }
    #endif
}

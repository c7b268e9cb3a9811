#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Turns SIGTERM (systemd, Kubernetes) and SIGINT (Ctrl-C) into a request to stop after
/// the batch in flight: the run commits it, emits its notifications and exits with
/// `ExitCodes.stopped` (75). A second signal ends the process at once; whatever was
/// committed but not emitted stays in the outbox for the next run.
///
/// The signals are ignored by the process and observed through dispatch sources, so no
/// code runs inside a signal handler.
public final class StopSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    /// Kept only to keep the sources alive; never touched after `init`.
    nonisolated(unsafe) private let sources: [DispatchSourceSignal]

    /// Starts listening for `signals`; keep the returned object alive for the run.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for (number, source) in zip(signals, sources) {
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let (first, _) = self.requested.compareExchange(
                    expected: false, desired: true, ordering: .sequentiallyConsistent)
                if !first {
                    // Asked twice: stop now. An open transaction rolls back on the server.
                    _exit(128 + number)
                }
            }
            source.resume()
        }
    }

    /// True once a signal arrived. Pass `{ stop.isRequested }` as `RunOptions.stopRequested`.
    public var isRequested: Bool { requested.load(ordering: .sequentiallyConsistent) }
}

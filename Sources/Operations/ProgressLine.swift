import Dispatch
import NightlyRun
import PlanRules
import Synchronization

/// The progress line a long run shows on a terminal, below its log lines:
/// `run: 40,000 / 120,000 users (33%) · 1,210 written · 12 rejected`.
///
/// Redrawn at most every `interval` seconds; never drawn when stderr is not a terminal
/// (journald, files, pipes get log lines only).
public final class ProgressLine: Sendable {
    private let output: ConsoleOutput
    private let intervalNanoseconds: UInt64
    private let lastDrawn = Mutex<UInt64?>(nil)

    public init(output: ConsoleOutput, intervalSeconds: Double = 2) {
        self.output = output
        self.intervalNanoseconds = UInt64(intervalSeconds * 1e9)
    }

    /// Pass as `RunOptions.progress`.
    public func report(_ progress: RunProgress) {
        guard output.isTerminal else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = lastDrawn.withLock { last -> Bool in
            if let last, now - last < intervalNanoseconds { return false }
            last = now
            return true
        }
        if due { output.showStatus(Self.text(progress)) }
    }

    /// Removes the line at the end of the run.
    public func finish() {
        output.clearStatus()
    }

    static func text(_ progress: RunProgress) -> String {
        let percent = progress.usersTotal == 0 ? 100 : progress.usersDone * 100 / progress.usersTotal
        let written = progress.counts.created + progress.counts.changed
        return "run: \(groupedThousands(progress.usersDone)) / \(groupedThousands(progress.usersTotal)) users "
            + "(\(percent)%) · \(groupedThousands(written)) written · "
            + "\(groupedThousands(progress.counts.rejected)) rejected"
    }
}

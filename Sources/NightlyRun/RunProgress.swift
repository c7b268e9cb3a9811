import PlanStore

/// How far a run has got, reported after each committed batch (`RunOptions.progress`),
/// so a terminal can show a progress line during a long run.
public struct RunProgress: Sendable, Equatable {
    /// Candidates looked at so far (every batch before this report is committed and emitted).
    public var usersDone: Int
    /// Candidates the run selected.
    public var usersTotal: Int
    /// The counts so far.
    public var counts: RunCounts

    public init(usersDone: Int, usersTotal: Int, counts: RunCounts) {
        self.usersDone = usersDone
        self.usersTotal = usersTotal
        self.counts = counts
    }
}

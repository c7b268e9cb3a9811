import Dispatch
import Foundation
import NightlyRun
import Postgres
import Synchronization

/// The floor of a run: PostgreSQL alone ingesting the rows the run wrote, with COPY from
/// server-side files into empty copies of the job's tables (same indexes), plus reading
/// the input rows once. The job cannot beat it: it has to compute and send those rows too.
///
/// Measured in as many streams as the job had workers (the fair floor: a job with two
/// workers uses both cores of the database host as well), each stream loading its share
/// of every table and reading its range of users' input on a connection of its own.
/// The rows are dumped once (`Floor.Files.dump`), then loaded once after each of the job's
/// runs (`load`): the loads alternate with the runs they are compared with, so that this
/// shared machine's speed, which moves within minutes, weighs on both alike. The median
/// of the loads is the floor.
struct Floor {
    /// Input rows the run read: `select` (a constant of this program, without WHERE),
    /// read by each stream for its range of `userColumn`.
    struct Input {
        var select: String
        var userColumn: String
    }

    /// A table the run wrote, and which of its rows are the run's.
    struct Output {
        var table: String
        /// A condition on the table's rows (a constant of this program).
        var rows: String
        /// A column whose remainder splits the rows between the streams.
        var splitColumn: String
    }

    /// One timed load: wall seconds, and the machine's busy CPU time meanwhile.
    struct Load {
        var seconds: Double
        var cpuSeconds: Double?
    }

    var seconds: Double
    var streams: Int
    var rowsLoaded: Int
    /// The machine's busy CPU time during the median load (the server's, nearly all).
    var cpuSeconds: Double?

    /// The median of `loads`.
    init(loads: [Load], streams: Int, rowsLoaded: Int) {
        let median = loads.sorted { $0.seconds < $1.seconds }[loads.count / 2]
        self.seconds = median.seconds
        self.cpuSeconds = median.cpuSeconds
        self.streams = streams
        self.rowsLoaded = rowsLoaded
    }

    /// A run's output rows dumped to files in a folder the server can write, and the input
    /// it read, ready to be loaded as many times as the job runs.
    struct Files {
        let outputs: [Output]
        let inputs: [Input]
        let folder: String
        let streams: Int
        let ranges: [ClosedRange<Int64>]
        let rowsLoaded: Int

        /// Dumps `outputs` (the rows of the run just made) into `folder`, one file per
        /// table and stream.
        static func dump(database: BenchDatabase, outputs: [Output], inputs: [Input], folder: String,
                         streams: Int) throws -> Files {
            let connection = database.connection
            let users = try connection.query("SELECT min(user_id) AS low, max(user_id) AS high FROM user_settings",
                                             purpose: "finding the range of user ids").singleRow()
            let (low, high) = (try users.int64("low"), try users.int64("high"))
            let perStream = (high - low) / Int64(streams) + 1
            // Contiguous ranges; with fewer users than streams the last ones start past `high`
            // and read nothing.
            let ranges = (0..<Int64(streams)).map { share in
                let first = low + share * perStream
                return first...max(first, min(high, first + perStream - 1))
            }
            var rowsLoaded = 0
            for output in outputs {
                for share in 0..<streams {
                    try connection.executeScript(
                        """
                        COPY (SELECT * FROM \(output.table) WHERE (\(output.rows)) AND \(output.splitColumn) % \(streams) = \(share))
                        TO '\(folder)/\(output.table).\(share).copy'
                        """, purpose: "dumping \(output.table) for the floor")
                }
                rowsLoaded += try database.count(
                    "SELECT count(*) AS n FROM \(unescaped: output.table) WHERE \(unescaped: output.rows)")
            }
            return Files(outputs: outputs, inputs: inputs, folder: folder, streams: streams, ranges: ranges,
                         rowsLoaded: rowsLoaded)
        }

        /// Loads the rows into empty copies of their tables and reads the input once, in
        /// `streams` connections at once; the copies are dropped afterwards.
        func load(database: BenchDatabase) throws -> Load {
            let connection = database.connection
            for output in outputs {
                try connection.executeScript(
                    """
                    DROP TABLE IF EXISTS floor_\(output.table);
                    CREATE TABLE floor_\(output.table) (LIKE \(output.table) INCLUDING ALL);
                    """, purpose: "creating an empty copy of \(output.table)")
            }
            try database.settle()
            let conninfo = database.conninfo
            let failure = Mutex<(any Error)?>(nil)
            let busyBefore = busyCPUSeconds()
            let started = DispatchTime.now()
            WorkerThreads.run(count: streams, name: "floor") { share in
                do {
                    try stream(conninfo: conninfo, share: share)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            let load = Load(seconds: timed(since: started),
                            cpuSeconds: busyBefore.flatMap { before in busyCPUSeconds().map { $0 - before } })
            if let error = failure.withLock({ $0 }) { throw error }
            for output in outputs {
                try connection.executeScript("DROP TABLE floor_\(output.table)", purpose: "dropping the floor tables")
            }
            return load
        }

        /// Deletes the dumped files.
        func remove() {
            for output in outputs {
                for share in 0..<streams { try? FileManager.default.removeItem(atPath: "\(folder)/\(output.table).\(share).copy") }
            }
        }

        /// Loads `share` of every output and reads the input rows of its range of users, on
        /// a connection of its own.
        private func stream(conninfo: String, share: Int) throws {
            let loader = try PostgresConnection(conninfo: conninfo)
            for output in outputs {
                try loader.executeScript(
                    "COPY floor_\(output.table) FROM '\(folder)/\(output.table).\(share).copy'",
                    purpose: "loading \(output.table) for the floor")
            }
            let users = ranges[share]
            for input in inputs {
                try loader.executeScript(
                    """
                    COPY (\(input.select) WHERE \(input.userColumn) BETWEEN \(users.lowerBound) AND \(users.upperBound))
                    TO '/dev/null'
                    """, purpose: "reading the input once")
            }
        }
    }
}

/// Wall seconds of `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now()
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

import Dispatch
import Foundation
import Postgres
import Synchronization

/// The floor of a run: PostgreSQL alone ingesting the rows the run wrote, with COPY from
/// server-side files into empty copies of the job's tables (same indexes), plus reading
/// the input rows once. The job cannot beat it: it has to compute and send those rows too.
///
/// Measured twice: one stream (every table in turn on one connection) and two streams
/// (two connections at once, each loading half of every table), since a job with two
/// workers or shards uses both cores of the database host as well.
struct Floor {
    /// A table the run wrote, and which of its rows are the run's.
    struct Output {
        var table: String
        /// A condition on the table's rows (a constant of this program).
        var rows: String
        /// A column whose parity splits the rows between the two streams.
        var splitColumn: String
    }

    var seconds1Stream: Double
    var seconds2Streams: Double
    var rowsLoaded: Int

    /// Dumps `outputs` to files in `folder` (which the server must be able to write),
    /// then times loading them and reading `inputs` (SQL queries) once.
    static func measure(database: BenchDatabase, outputs: [Output], inputs: [String], folder: String) throws -> Floor {
        let connection = database.connection
        var rowsLoaded = 0
        for output in outputs {
            for half in 0..<2 {
                try connection.executeScript(
                    """
                    COPY (SELECT * FROM \(output.table) WHERE (\(output.rows)) AND \(output.splitColumn) % 2 = \(half))
                    TO '\(folder)/\(output.table).\(half).copy'
                    """, purpose: "dumping \(output.table) for the floor")
            }
            rowsLoaded += try database.count(
                "SELECT count(*) AS n FROM \(unescaped: output.table) WHERE \(unescaped: output.rows)")
        }

        func prepareEmptyCopies() throws {
            for output in outputs {
                try connection.executeScript(
                    """
                    DROP TABLE IF EXISTS floor_\(output.table);
                    CREATE TABLE floor_\(output.table) (LIKE \(output.table) INCLUDING ALL);
                    """, purpose: "creating an empty copy of \(output.table)")
            }
            try database.settle()
        }
        try prepareEmptyCopies()
        let conninfo = database.conninfo
        let oneStream = try timed {
            try stream(conninfo: conninfo, outputs: outputs, halves: [0, 1], inputs: inputs, folder: folder)
        }

        try prepareEmptyCopies()
        let failure = Mutex<(any Error)?>(nil)
        let twoStreams = timed {
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                do {
                    try stream(conninfo: conninfo, outputs: outputs, halves: [half],
                               inputs: half == 0 ? inputs : [], folder: folder)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }

        for output in outputs {
            try connection.executeScript("DROP TABLE floor_\(output.table)", purpose: "dropping the floor tables")
            for half in 0..<2 { try? FileManager.default.removeItem(atPath: "\(folder)/\(output.table).\(half).copy") }
        }
        return Floor(seconds1Stream: oneStream, seconds2Streams: twoStreams, rowsLoaded: rowsLoaded)
    }

    /// Loads `halves` of every output and reads every input, on a connection of its own.
    private static func stream(conninfo: String, outputs: [Output], halves: [Int], inputs: [String],
                               folder: String) throws {
        let loader = try PostgresConnection(conninfo: conninfo)
        for output in outputs {
            for half in halves {
                try loader.executeScript(
                    "COPY floor_\(output.table) FROM '\(folder)/\(output.table).\(half).copy'",
                    purpose: "loading \(output.table) for the floor")
            }
        }
        for input in inputs {
            try loader.executeScript("COPY (\(input)) TO '/dev/null'", purpose: "reading the input once")
        }
    }
}

/// Wall seconds of `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now()
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

import CLibPQ

/// Collects rows for a running `COPY … FROM STDIN` in text format and sends them in
/// large chunks. Only valid inside the `copyIn` closure that handed it out.
public final class PostgresCopyWriter {
    /// Chunks of this size keep the number of `PQputCopyData` calls small without
    /// holding much memory.
    static let chunkSize = 256 * 1024

    private let connection: PostgresConnection
    private let purpose: String
    private var buffer: [UInt8] = []
    /// Rows handed to `addRow` so far.
    public private(set) var rowCount = 0

    init(connection: PostgresConnection, purpose: String) {
        self.connection = connection
        self.purpose = purpose
        buffer.reserveCapacity(Self.chunkSize + 4096)
    }

    /// Appends one row: one value per column of the COPY's column list, nil for NULL.
    ///
    /// - Throws: `.invalidParameter` for text with a NUL character, `.copyFailed` or
    ///   `.connectionLost` when sending a full chunk fails.
    public func addRow(_ values: [(any PostgresParameter)?]) throws {
        // The row is built in a local: appending to a stored property costs a dynamic
        // exclusivity check per append, which made escaping most of a run's client CPU.
        var row = buffer
        buffer = []
        defer { buffer = row }
        for (position, value) in values.enumerated() {
            if position > 0 { row.append(UInt8(ascii: "\t")) }
            guard let value else {
                row.append(UInt8(ascii: "\\"))
                row.append(UInt8(ascii: "N"))
                continue
            }
            guard Self.appendEscaped(value.postgresText, to: &row) else {
                throw PostgresError(
                    code: .invalidParameter, purpose: purpose,
                    message: "row \(rowCount + 1), column \(position + 1) contains a NUL character")
            }
        }
        row.append(UInt8(ascii: "\n"))
        rowCount += 1
        if row.count >= Self.chunkSize { try send(&row) }
    }

    /// Text COPY escapes: backslash, tab, newline and carriage return would otherwise
    /// end a field or a row (and `\N` would read as NULL). Runs of ordinary bytes are
    /// appended whole. Returns false, leaving `out` partly written, for a NUL character,
    /// which text COPY cannot carry.
    private static func appendEscaped(_ text: String, to out: inout [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let escaped: UInt8
                switch bytes[index] {
                case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
                case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
                case 0: return false
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                out.append(UInt8(ascii: "\\"))
                out.append(escaped)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            return true
        }
    }

    /// Sends what is buffered.
    func flush() throws {
        try send(&buffer)
    }

    /// Sends `bytes` and empties them. `PQputCopyData` returns 1 on success; on a
    /// blocking connection anything else means the connection failed.
    private func send(_ bytes: inout [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let status = bytes.withUnsafeBufferPointer { chunk in
            chunk.withMemoryRebound(to: CChar.self) {
                PQputCopyData(connection.handle, $0.baseAddress, Int32($0.count))
            }
        }
        guard status == 1 else {
            throw connection.failure(nil, code: .copyFailed, purpose: purpose)
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

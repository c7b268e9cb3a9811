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
        for (position, value) in values.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: "\t")) }
            guard let value else {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(UInt8(ascii: "N"))
                continue
            }
            try appendEscaped(value.postgresText, column: position)
        }
        buffer.append(UInt8(ascii: "\n"))
        rowCount += 1
        if buffer.count >= Self.chunkSize { try flush() }
    }

    /// Text COPY escapes: backslash, tab, newline and carriage return would otherwise
    /// end a field or a row (and `\N` would read as NULL).
    private func appendEscaped(_ text: String, column: Int) throws {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\t"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
            case 0:
                throw PostgresError(
                    code: .invalidParameter, purpose: purpose,
                    message: "row \(rowCount + 1), column \(column + 1) contains a NUL character")
            default: buffer.append(byte)
            }
        }
    }

    /// Sends what is buffered. `PQputCopyData` returns 1 on success; on a blocking
    /// connection anything else means the connection failed.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                PQputCopyData(connection.handle, $0.baseAddress, Int32($0.count))
            }
        }
        guard status == 1 else {
            throw connection.failure(nil, code: .copyFailed, purpose: purpose)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

import CLibPQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        try addRow { row in
            for value in values { row.value(value) }
        }
    }

    /// Appends one row field by field, in the COPY's column order: for hot paths, where
    /// boxing every value into an array of `PostgresParameter`s shows in a profile.
    ///
    /// ```swift
    /// try writer.addRow { row in
    ///     row.integer(plan.userID)
    ///     row.text(plan.json)
    /// }
    /// ```
    ///
    /// - Throws: as `addRow(_:)`.
    public func addRow(_ fields: (inout PostgresCopyRow) throws -> Void) throws {
        // The row is built in a local: appending to a stored property costs a dynamic
        // exclusivity check per append, which made escaping most of a run's client CPU.
        var row = PostgresCopyRow(bytes: buffer)
        buffer = []
        defer { buffer = row.bytes }
        try fields(&row)
        if let column = row.columnWithNUL {
            throw PostgresError(
                code: .invalidParameter, purpose: purpose,
                message: "row \(rowCount + 1), column \(column) contains a NUL character")
        }
        row.bytes.append(UInt8(ascii: "\n"))
        rowCount += 1
        if row.bytes.count >= Self.chunkSize { try send(&row.bytes) }
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

/// One row being appended by `PostgresCopyWriter.addRow(_:)`: each call adds the next
/// field, in text COPY format.
public struct PostgresCopyRow {
    @usableFromInline var bytes: [UInt8]
    @usableFromInline var fieldCount = 0
    /// The first column (1-based) whose text held a NUL character, which text COPY
    /// cannot carry: the writer refuses the row.
    private(set) var columnWithNUL: Int?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// NULL.
    public mutating func null() {
        separate()
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "N"))
    }

    /// Text, escaped; nil is NULL.
    public mutating func text(_ value: String?) {
        guard let value else { return null() }
        // Read in place: `withUTF8` needs a mutable copy of the string (a retain and
        // release per field); only a bridged string has no contiguous UTF-8.
        if value.utf8.withContiguousStorageIfAvailable({ appendField($0) }) == nil {
            var copy = value
            copy.withUTF8 { appendField($0) }
        }
    }

    /// Text given as UTF-8 bytes (JSON an encoder wrote), escaped; nil is NULL.
    public mutating func text(utf8 value: [UInt8]?) {
        guard let value else { return null() }
        value.withUnsafeBufferPointer { appendField($0) }
    }

    /// Compact JSON text as UTF-8 bytes; nil is NULL. "Compact": no tab, line feed or
    /// carriage return between tokens, as `JSONWriter` and jsonb's own text output write
    /// it (inside strings JSON escapes every control character). Such text can hold no
    /// byte COPY escapes but the backslash, so only that is looked for: one scan instead
    /// of five over the largest fields of a run. Anything else goes through
    /// `text(utf8:)`; a raw tab or line break here would cut the row short, and the COPY
    /// would fail rather than store a wrong row.
    public mutating func compactJSON(utf8 value: [UInt8]?) {
        guard let value else { return null() }
        value.withUnsafeBufferPointer { compactJSON(utf8: $0) }
    }

    /// Compact JSON text as UTF-8 bytes in place (a slice of a batch's buffer), as
    /// `compactJSON(utf8:)` above.
    public mutating func compactJSON(utf8 json: UnsafeBufferPointer<UInt8>) {
        guard let base = json.baseAddress, memchr(base, Int32(UInt8(ascii: "\\")), json.count) != nil else {
            separate()
            bytes.append(contentsOf: json)
            return
        }
        appendField(json)
    }

    /// A value whose text needs no escape, written in place (no String made); nil is NULL.
    @inlinable
    public mutating func plain(_ value: (some PostgresPlainText)?) {
        guard let value else { return null() }
        separate()
        bytes.appendPlainText(value)
    }

    /// One escaped text field; remembers the column when it holds a NUL character.
    private mutating func appendField(_ utf8: UnsafeBufferPointer<UInt8>) {
        separate()
        if !Self.appendEscaped(utf8, to: &bytes), columnWithNUL == nil { columnWithNUL = fieldCount }
    }

    /// An integer in decimal; nil is NULL. Digits written from the last on a stack buffer
    /// and copied in once: counting them first (`plain`) divided every value twice, and
    /// ids, counts and run ids are a third of a run's COPY fields.
    public mutating func integer(_ value: Int64?) {
        guard let value else { return null() }
        separate()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let start = value.putDecimal(into: digits, endingAt: digits.count)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// An integer in decimal; nil is NULL.
    public mutating func integer(_ value: Int?) {
        integer(value.map(Int64.init))
    }

    /// Any parameter in its text form; nil is NULL.
    public mutating func value(_ value: (any PostgresParameter)?) {
        text(value?.postgresText)
    }

    /// The bytes `appendEscaped` must look at.
    private static let specialBytes: [UInt8] = [
        UInt8(ascii: "\\"), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0,
    ]

    @usableFromInline
    mutating func separate() {
        if fieldCount > 0 { bytes.append(UInt8(ascii: "\t")) }
        fieldCount += 1
    }

    /// Text COPY escapes: backslash, tab, newline and carriage return would otherwise
    /// end a field or a row (and `\N` would read as NULL). Runs of ordinary bytes are
    /// appended whole. Returns false for a NUL character.
    private static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        // Most fields (JSON snapshots among them) need no escape at all: memchr finds that
        // out far faster than a byte loop.
        if let base = text.baseAddress,
           !Self.specialBytes.contains(where: { memchr(base, Int32($0), text.count) != nil }) {
            out.append(contentsOf: text)
            return true
        }
        var runStart = 0
        for index in text.indices {
            let escaped: UInt8
            switch text[index] {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            case 0: return false
            default: continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            out.append(UInt8(ascii: "\\"))
            out.append(escaped)
            runStart = index + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
        return true
    }
}

/// Calls `body` with C strings for `strings` (NULL for nil), all packed into one
/// allocation that lives exactly as long as the call. libpq takes parameter values,
/// connection keywords and values as `const char * const *`.
func withCStringArray<R>(
    _ strings: [String?],
    _ body: ([UnsafePointer<CChar>?]) throws -> R
) rethrows -> R {
    let byteCount = strings.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 }
    let storage = UnsafeMutablePointer<CChar>.allocate(capacity: max(byteCount, 1))
    defer { storage.deallocate() }
    var pointers: [UnsafePointer<CChar>?] = []
    pointers.reserveCapacity(strings.count)
    var offset = 0
    for string in strings {
        guard var string else {
            pointers.append(nil)
            continue
        }
        let start = storage + offset
        // Copied whole, not byte by byte: a batch's column arrays are hundreds of kilobytes.
        string.withUTF8 { utf8 in
            if let source = utf8.baseAddress {
                UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: utf8.count)
            }
            offset += utf8.count
        }
        storage[offset] = 0
        offset += 1
        pointers.append(UnsafePointer(start))
    }
    return try body(pointers)
}

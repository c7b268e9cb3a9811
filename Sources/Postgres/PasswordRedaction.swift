import CLibPQ

/// Keeps passwords out of connection errors. libpq echoes parts of a malformed
/// conninfo or URI in its messages, so every form of the password the caller may have
/// written is collected and masked before the message leaves this layer.
enum PasswordRedaction {
    static let mask = "********"

    /// Replaces every occurrence of each non-empty secret in `text` with a mask.
    /// Longer secrets go first so a secret containing another is masked whole.
    static func redact(_ text: String, secrets: [String]) -> String {
        let distinct = Set(secrets.filter { !$0.isEmpty }).sorted { $0.count > $1.count }
        return distinct.reduce(text) { $0.replacing($1, with: mask) }
    }

    /// The password a conninfo carries, in every spelling: as libpq parses it, and as
    /// found by hand for strings libpq cannot parse (raw and percent-decoded for URIs).
    static func passwords(inConninfo conninfo: String) -> [String] {
        var found: [String] = []
        if let parsed = libpqParsedPassword(conninfo) { found.append(parsed) }
        if let uriPassword = uriPassword(conninfo) {
            found.append(uriPassword)
            found.append(percentDecoded(uriPassword))
        }
        found.append(contentsOf: keywordPasswords(conninfo))
        if let environmentPassword = PostgresConnection.environmentVariable("PGPASSWORD") {
            found.append(environmentPassword)
        }
        return found
    }

    private static func libpqParsedPassword(_ conninfo: String) -> String? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(conninfo, &errorMessage)
        if let errorMessage { PQfreemem(errorMessage) }
        guard let options else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val {
                return String(cString: value)
            }
            option += 1
        }
        return nil
    }

    /// `postgresql://user:PASSWORD@host/db?…`: the text between the first ':' of the
    /// user info and the last '@' before the query string.
    private static func uriPassword(_ conninfo: String) -> String? {
        guard let scheme = conninfo.firstRange(of: "://") else { return nil }
        let afterScheme = conninfo[scheme.upperBound...]
        let beforeQuery = afterScheme.prefix { $0 != "?" }
        guard let at = beforeQuery.lastIndex(of: "@") else { return nil }
        let userInfo = beforeQuery[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return nil }
        return String(userInfo[userInfo.index(after: colon)...])
    }

    /// `password = value` or `password='quoted \' value'` in key=value form.
    private static func keywordPasswords(_ conninfo: String) -> [String] {
        var values: [String] = []
        var rest = Substring(conninfo)
        while let keyword = rest.firstRange(of: "password") {
            rest = rest[keyword.upperBound...].drop(while: { $0 == " " || $0 == "\t" })
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
            var value = ""
            if rest.first == "'" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "'" {
                    rest = rest.dropFirst()
                    if character == "\\", let escaped = rest.first {
                        value.append(escaped)
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
            } else {
                value = String(rest.prefix { !$0.isWhitespace })
                values.append(value.replacing("\\", with: ""))
            }
            values.append(value)
        }
        return values
    }

    private static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.first {
            utf8 = utf8.dropFirst()
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Postgres
import TestSupport

/// A connection to the test server's maintenance database, for tests that create
/// nothing; tests that create tables use `TestDatabase.withFresh`.
func serverConnection() throws -> PostgresConnection {
    try TestDatabase.adminConnection()
}

extension String {
    /// Percent-encodes everything but unreserved URI characters (for building URIs).
    var uriEncoded: String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var encoded = ""
        for byte in utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}

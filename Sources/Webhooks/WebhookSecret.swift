import Foundation

/// A Standard Webhooks signing secret: `whsec_` followed by the base64 of the key bytes.
/// Never printed: its description names it without the key.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The HMAC key: the base64-decoded part after `whsec_`.
    let key: [UInt8]

    public static let prefix = "whsec_"

    /// Parses `whsec_<base64>`; nil for anything else (an empty key included).
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix),
              let key = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))), !key.isEmpty else { return nil }
        self.key = [UInt8](key)
    }

    public var description: String { "whsec_… (\(key.count)-byte key, redacted)" }

    /// The secrets that sign each request, read from `text` (the environment variable or a
    /// secret file): one `whsec_…` per line or separated by spaces; two while a secret is
    /// being rotated (both signatures are sent). The message names the source, never the
    /// text.
    public static func secrets(from text: String, source: String) throws -> [WebhookSecret] {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else {
            throw WebhookConfigurationError("\(source) is empty: it must hold the webhook secret, whsec_ followed by base64")
        }
        guard words.count <= 2 else {
            throw WebhookConfigurationError("\(source) holds \(words.count) words: at most two secrets (during a rotation), "
                + "each whsec_ followed by base64")
        }
        return try words.enumerated().map { index, word in
            guard let secret = WebhookSecret(word) else {
                throw WebhookConfigurationError("secret \(index + 1) of \(source) is not whsec_ followed by base64 "
                    + "(the value is not shown)")
            }
            return secret
        }
    }
}

/// A webhook setting that cannot be used (URL, secret, CA file): said without any secret,
/// before a run plans anything (exit 64).
public struct WebhookConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

import Crypto
import Foundation

/// Signs requests as the Standard Webhooks specification says: `webhook-signature` is
/// `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")), one per
/// secret, separated by spaces (two while a secret is rotated).
public struct WebhookSigner: Sendable {
    public let secrets: [WebhookSecret]

    public init(secrets: [WebhookSecret]) {
        precondition(!secrets.isEmpty, "a webhook is signed with at least one secret")
        self.secrets = secrets
    }

    /// The `webhook-id` of a request with this body: derived from its contents, so a retry
    /// of the same lines carries the same id ("msg_" and 32 hex digits of its SHA-256).
    public static func webhookID(body: [UInt8]) -> String {
        let digest = SHA256.hash(data: body)
        return "msg_" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The `webhook-signature` header's value.
    public func signature(webhookID: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(webhookID).\(timestamp).".utf8)
        signed.append(contentsOf: body)
        return secrets.map { secret in
            let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret.key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The three Standard Webhooks headers of a request sent at `timestamp` (Unix seconds
    /// of the wall clock: receivers refuse one more than 5 minutes off).
    public func headers(body: [UInt8], timestamp: Int64) -> [(name: String, value: String)] {
        let id = Self.webhookID(body: body)
        return [("webhook-id", id), ("webhook-timestamp", "\(timestamp)"),
                ("webhook-signature", signature(webhookID: id, timestamp: timestamp, body: body))]
    }
}

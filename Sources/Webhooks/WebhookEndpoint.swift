import Foundation

/// Where the notification lines are POSTed, and how: the URL (http or https, with a host),
/// an extra CA certificate file beside the system's bundle, and the request timeout.
/// Printed only with its password redacted (`redacted`).
public struct WebhookEndpoint: Sendable {
    public let url: String
    /// The URL as logs and messages show it: a password replaced by `***`.
    public let redacted: String
    /// PEM certificates trusted besides the system's CA bundle (a private push service).
    public let caFile: String?
    public let requestTimeout: Duration

    /// True for the words `--notifications` reads as a webhook (`http://…`, `https://…`).
    public static func isWebhook(_ destination: String) -> Bool {
        let lower = destination.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    public init(url: String, caFile: String? = nil, requestTimeout: Duration = .seconds(30)) throws {
        let redacted = Self.redacting(url)
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased() else {
            throw WebhookConfigurationError("--notifications \(redacted) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw WebhookConfigurationError("--notifications \(redacted): the scheme \(scheme) is not http or https")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw WebhookConfigurationError("--notifications \(redacted) has no host")
        }
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile),
                  let pem = FileManager.default.contents(atPath: caFile),
                  String(decoding: pem, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                throw WebhookConfigurationError("--webhook-ca-file \(caFile) cannot be read as PEM certificates")
            }
        }
        self.url = url
        self.redacted = redacted
        self.caFile = caFile
        self.requestTimeout = requestTimeout
    }

    /// `url` with the password of its user information replaced by `***`.
    public static func redacting(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<schemeEnd.upperBound]) + userInfo[..<colon] + ":***" + String(rest[at...])
    }
}

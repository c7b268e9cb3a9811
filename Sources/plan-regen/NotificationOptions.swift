import ArgumentParser
import Foundation
import NightlyRun
import Webhooks

/// Where notification lines go, shared by `run` and `deliver`: stdout, a file, or a
/// webhook, with the webhook's secret, CA and retry settings. Checked once, before any
/// planning: a bad URL, a missing or malformed secret, an unreadable secret or CA file is
/// a usage error (exit 64).
struct NotificationOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where notification lines go: - (stdout), a file (appended, fsync'ed), or an http(s):// webhook URL.",
        discussion: "stdout: the lines are marked emitted once handed to the kernel. A file: once written and "
            + "fsync'ed. A webhook: once the receiver answered 2xx to every request (Standard Webhooks headers, "
            + "signed with PLAN_REGEN_WEBHOOK_SECRET or --webhook-secret-file).",
        valueName: "destination"))
    var notifications: String?

    @Option(help: ArgumentHelp(
        "Read the webhook secret (whsec_..., two during a rotation) from this file instead of PLAN_REGEN_WEBHOOK_SECRET.",
        valueName: "file"))
    var webhookSecretFile: String?

    @Option(help: ArgumentHelp("Trust the CA certificates in this PEM file besides the system's (a private receiver).",
                               valueName: "file"))
    var webhookCAFile: String?

    @Option(help: ArgumentHelp("Give up on a webhook request after this many seconds without an answer.",
                               valueName: "seconds"))
    var webhookTimeout: Double = 30

    @Option(help: ArgumentHelp(
        "Retry a failing webhook for at most this many seconds per run; the lines left stay pending.",
        discussion: "Also the longest a run waits for delivery after planning. The default leaves a 15-minute "
            + "timer room for planning and the next run.",
        valueName: "seconds"))
    var deliveryTimeLimit: Double = 300

    static let secretVariable = "PLAN_REGEN_WEBHOOK_SECRET"

    /// The destination as given; nil or `-` is stdout.
    var target: String? { notifications == "-" ? nil : notifications }

    var isWebhook: Bool { target.map(WebhookEndpoint.isWebhook) ?? false }

    func validate() throws {
        guard webhookTimeout > 0 else { throw ValidationError("--webhook-timeout must be more than 0 seconds") }
        guard deliveryTimeLimit >= 0 else { throw ValidationError("--delivery-time-limit cannot be negative") }
        if let target, !isWebhook, target.contains("://") {
            throw ValidationError("--notifications \(WebhookEndpoint.redacting(target)): only http:// and https:// "
                + "URLs are webhooks; give a file path, - for stdout, or an http(s) URL")
        }
        if isWebhook {
            _ = try webhook(userAgent: "plan-regen", claimTTL: .seconds(120))
        } else if webhookSecretFile != nil || webhookCAFile != nil {
            throw ValidationError("--webhook-secret-file and --webhook-ca-file go with an http(s):// --notifications")
        }
    }

    /// The webhook `--notifications` names, with its secrets and settings; nil for stdout
    /// or a file. Throws a `ValidationError` (exit 64) that never shows a secret.
    func webhook(userAgent: String, claimTTL: Duration) throws -> NotificationWebhook? {
        guard let target, isWebhook else { return nil }
        do {
            let endpoint = try WebhookEndpoint(url: target, caFile: webhookCAFile,
                                               requestTimeout: .milliseconds(Int64(webhookTimeout * 1000)))
            let secrets: [WebhookSecret]
            if let webhookSecretFile {
                guard let contents = FileManager.default.contents(atPath: webhookSecretFile) else {
                    throw WebhookConfigurationError("--webhook-secret-file \(webhookSecretFile) cannot be read")
                }
                secrets = try WebhookSecret.secrets(from: String(decoding: contents, as: UTF8.self),
                                                    source: "--webhook-secret-file \(webhookSecretFile)")
            } else if let value = ProcessInfo.processInfo.environment[Self.secretVariable] {
                secrets = try WebhookSecret.secrets(from: value, source: Self.secretVariable)
            } else {
                throw WebhookConfigurationError("a webhook needs its secret: set \(Self.secretVariable) or give "
                    + "--webhook-secret-file (never the secret itself on the command line)")
            }
            return NotificationWebhook(endpoint: endpoint, signer: WebhookSigner(secrets: secrets),
                                       userAgent: userAgent, settings: deliverySettings(claimTTL: claimTTL))
        } catch let error as WebhookConfigurationError {
            throw ValidationError(error.description)
        }
    }

    /// How long failing requests are retried, and the delivery claims' TTL.
    func deliverySettings(claimTTL: Duration) -> DeliverySettings {
        DeliverySettings(timeLimit: .milliseconds(Int64(deliveryTimeLimit * 1000)), claimTTL: claimTTL)
    }

    /// The sink of stdout or the file (a webhook's lines never reach it).
    func sink() throws -> NotificationSink {
        guard let target, !isWebhook else { return .standardOutput() }
        return try .appending(toFile: target)
    }
}

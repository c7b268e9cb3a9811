import Logging
import PlanStore
import Webhooks

/// `--notifications https://…`: the receiver, the secrets that sign each request, and how
/// delivery retries. Checked before anything is planned (a bad URL, secret or CA file:
/// exit 64).
public struct NotificationWebhook: Sendable {
    public var endpoint: WebhookEndpoint
    public var signer: WebhookSigner
    public var userAgent: String
    public var settings: DeliverySettings

    public init(endpoint: WebhookEndpoint, signer: WebhookSigner, userAgent: String, settings: DeliverySettings) {
        self.endpoint = endpoint
        self.signer = signer
        self.userAgent = userAgent
        self.settings = settings
    }

    /// A delivery thread (not started) posting to the receiver over a database connection
    /// of its own.
    public func makeDelivery(stores: RunStores, logger: Logger,
                             stopRequested: @escaping @Sendable () -> Bool) throws -> NotificationDelivery {
        guard let deliveryStore = stores.delivery else { preconditionFailure("a run with a webhook needs RunStores.delivery") }
        return NotificationDelivery(
            poster: try WebhookClient(endpoint: endpoint, signer: signer, userAgent: userAgent),
            store: try deliveryStore(),
            claim: DeliveryClaim(claimant: NotificationDelivery.claimant, ttl: settings.claimTTL),
            settings: settings, logger: logger, stopRequested: stopRequested)
    }
}

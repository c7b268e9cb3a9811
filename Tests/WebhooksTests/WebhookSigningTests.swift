import Foundation
import Testing
@testable import Webhooks

/// Signing as the Standard Webhooks specification says, checked against signatures PyPI's
/// `standardwebhooks` 1.1.0 (the reference library) made for the same secret, id,
/// timestamp and body; the id derived from the body; secrets parsed without ever being
/// printed; URLs with their password redacted; the retry schedule.
@Suite struct WebhookSigningTests {
    static let body = Array("""
        {"id":"4:2026-02-28:plan_created:0"}
        {"id":"5:2026-02-28:plan_created:0"}

        """.utf8)

    // Webhook("whsec_MfKQ…").sign("msg_p5jX…", datetime.fromtimestamp(1614265330, tz=utc), body)
    @Test func theSignatureIsTheReferenceLibrarys() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signer = WebhookSigner(secrets: [secret])
        #expect(signer.signature(webhookID: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Self.body)
                == "v1,Xw5r2PVDuPSR7egAVnv4323XK9o97J+tPZr6xlQkshk=")
    }

    @Test func twoSecretsDuringARotationSendBothSignaturesSpaceSeparated() throws {
        let secrets = try WebhookSecret.secrets(
            from: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\nwhsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=\n", source: "a file")
        let signature = WebhookSigner(secrets: secrets)
            .signature(webhookID: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Self.body)
        #expect(signature == "v1,Xw5r2PVDuPSR7egAVnv4323XK9o97J+tPZr6xlQkshk= "
                + "v1,Y+Amm3cmacL1ap/noPE7EcwjsMkgpfzsJDZsyZ1bhfM=")
    }

    /// The id is "msg_" and the first 16 bytes of the body's SHA-256 (sha256sum of the body
    /// starts 5deb23ee1cc89541a2bba85d83394df0): the same lines, the same id.
    @Test func theWebhookIDComesFromTheBody() throws {
        #expect(WebhookSigner.webhookID(body: Self.body) == "msg_5deb23ee1cc89541a2bba85d83394df0")
        let signer = WebhookSigner(secrets: [try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))])
        let headers = signer.headers(body: Self.body, timestamp: 1_614_265_330)
        #expect(headers.map(\.name) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers[1].value == "1614265330")
        #expect(WebhookSigner.webhookID(body: Self.body + Array("{\"id\":\"6\"}\n".utf8)) != headers[0].value)
    }

    @Test func secretsThatAreNotWhsecBase64AreRefusedWithoutShowingThem() {
        for text in ["", "whsec_", "whsec_!!!", "sk_live_abc", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw x y"] {
            do {
                _ = try WebhookSecret.secrets(from: text, source: "PLAN_REGEN_WEBHOOK_SECRET")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error is WebhookConfigurationError)
                #expect(!"\(error)".contains("!!!") && !"\(error)".contains("sk_live") && !"\(error)".contains("MfKQ"))
            }
        }
        let secret = WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(secret.map { "\($0)" }?.contains("MfKQ") == false)
    }

    @Test func aURLsPasswordIsRedacted() throws {
        #expect(WebhookEndpoint.redacting("https://user:s3cret@push.example:8443/hook?x=1")
                == "https://user:***@push.example:8443/hook?x=1")
        #expect(WebhookEndpoint.redacting("https://push.example/a@b") == "https://push.example/a@b")
        #expect(WebhookEndpoint.redacting("https://user@push.example/") == "https://user@push.example/")
        let endpoint = try WebhookEndpoint(url: "http://u:p4ss@127.0.0.1:9/x")
        #expect(endpoint.redacted == "http://u:***@127.0.0.1:9/x")
        #expect(throws: WebhookConfigurationError.self) { try WebhookEndpoint(url: "ftp://push.example/x") }
        #expect(throws: WebhookConfigurationError.self) { try WebhookEndpoint(url: "https:///x") }
    }

    /// Delays: 0.5 s doubled per failure, capped at 30 s, jittered into the upper half of
    /// the step; a longer Retry-After wins.
    @Test func backoffDoublesWithJitterAndHonoursRetryAfter() {
        let schedule = RetrySchedule()
        #expect(schedule.delaySeconds(afterFailures: 1, retryAfterSeconds: nil, random: 0) == 0.25)
        #expect(schedule.delaySeconds(afterFailures: 1, retryAfterSeconds: nil, random: 0.999) < 0.5)
        #expect(schedule.delaySeconds(afterFailures: 4, retryAfterSeconds: nil, random: 0) == 2)  // 0.5 * 8 / 2
        #expect(schedule.delaySeconds(afterFailures: 30, retryAfterSeconds: nil, random: 1) == 30)
        #expect(schedule.delaySeconds(afterFailures: 1, retryAfterSeconds: 7, random: 0.5) == 7)
        #expect(RetryAfter.seconds("120", now: Date()) == 120)
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == 30)
        #expect(RetryAfter.seconds("soon", now: now) == nil)
    }

    /// 2xx delivered; 408, 429, 5xx and every transport failure retried; any other status
    /// refused (no retry in this run).
    @Test func whatEachAnswerMeans() {
        func verdict(_ status: Int) -> WebhookOutcome.Verdict {
            WebhookOutcome.answered(status: status, retryAfterSeconds: nil, firstBodyLine: "").verdict
        }
        #expect(verdict(200) == .delivered && verdict(204) == .delivered)
        #expect(verdict(408) == .retry(.http408) && verdict(429) == .retry(.http429) && verdict(503) == .retry(.http5xx))
        for status in [301, 400, 401, 403, 404, 413] { #expect(verdict(status) == .refused(.refused)) }
        #expect(WebhookOutcome.failed(.tls, message: "x").verdict == .retry(.tls))
    }
}

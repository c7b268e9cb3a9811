import CCurl
import Foundation

/// How one POST ended: the receiver's answer, or why there was none.
public enum WebhookOutcome: Sendable, Equatable {
    /// An HTTP answer: its status, its `Retry-After` (seconds, or an HTTP date turned
    /// into seconds from now) and the first line of its body, for the log.
    case answered(status: Int, retryAfterSeconds: Double?, firstBodyLine: String)
    /// No answer: a timeout, a connection refused or reset, a TLS failure.
    case failed(DeliveryFailure, message: String)

    /// What the outcome means for the lines: delivered (2xx), worth retrying, or refused.
    public var verdict: Verdict {
        switch self {
        case .answered(let status, _, _):
            switch status {
            case 200..<300: .delivered
            case 408, 429, 500..<600: .retry(DeliveryFailure(status: status))
            default: .refused(DeliveryFailure(status: status))
            }
        case .failed(let failure, _):
            .retry(failure)
        }
    }

    public enum Verdict: Sendable, Equatable {
        case delivered
        case retry(DeliveryFailure)
        /// No retry in this run: the lines stay pending, the batch is recorded as refused.
        case refused(DeliveryFailure)
    }
}

/// A failed request's class, as the metrics count them.
public enum DeliveryFailure: String, Sendable, CaseIterable {
    case timeout
    case connection
    case tls
    case http408 = "http_408"
    case http429 = "http_429"
    case http5xx = "http_5xx"
    /// Any other status that is not 2xx (400, 401, 403, 404, 413, a redirect): not retried.
    case refused = "http_refused"

    init(status: Int) {
        switch status {
        case 408: self = .http408
        case 429: self = .http429
        case 500..<600: self = .http5xx
        default: self = .refused
        }
    }
}

/// One connection to the webhook receiver, kept open between requests (libcurl's easy
/// handle). Used by one thread at a time.
///
/// libcurl, not URLSession: swift-corelibs-foundation's URLSession takes an extra CA only
/// from a process-wide environment variable that replaces the system bundle
/// (`URLSessionCertificateAuthorityInfoFile`), and async-http-client would add minutes to
/// every clean build for one POST. libcurl is already linked (FoundationNetworking), reads
/// `HTTPS_PROXY`/`NO_PROXY` itself, and verifies against the system bundle plus the CA
/// file given here.
public final class WebhookClient: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    public let endpoint: WebhookEndpoint
    private let signer: WebhookSigner
    private let userAgent: String
    private let caBundle: [UInt8]?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(ccurl_error_buffer_size))
    /// The wall clock in Unix seconds, for `webhook-timestamp` (never a run's --as-of).
    private let wallClockSeconds: @Sendable () -> Int64

    private static let globalInit: Void = { _ = ccurl_global_init() }()

    public init(endpoint: WebhookEndpoint, signer: WebhookSigner, userAgent: String,
                wallClockSeconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { throw WebhookConfigurationError("libcurl could not make a handle") }
        self.handle = handle
        self.endpoint = endpoint
        self.signer = signer
        self.userAgent = userAgent
        self.wallClockSeconds = wallClockSeconds
        if let caFile = endpoint.caFile {
            // The system's bundle and the given file together: libcurl takes one bundle.
            var bundle = ccurl_default_ca_bundle().flatMap { FileManager.default.contents(atPath: String(cString: $0)) }
                .map([UInt8].init) ?? []
            bundle.append(0x0A)
            bundle.append(contentsOf: FileManager.default.contents(atPath: caFile).map([UInt8].init) ?? [])
            caBundle = bundle
        } else {
            caBundle = nil
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// POSTs `body` (whole notification lines) with the Standard Webhooks headers, signed
    /// now. Never throws: every way it can end is a `WebhookOutcome`. `whileSending` is
    /// called once some of the body has left and before the answer is read (the kill
    /// tests' mid-request fault).
    public func post(_ body: [UInt8], whileSending: (() -> Void)? = nil) -> WebhookOutcome {
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        let signed = signer.headers(body: body, timestamp: wallClockSeconds())
        // No "Expect: 100-continue": it would wait for an answer before each body.
        for line in ["Content-Type: application/x-ndjson", "Expect:"] + signed.map({ "\($0.name): \($0.value)" }) {
            headers = curl_slist_append(headers, line)
        }
        let response = ResponseCapture(whileSending: whileSending)
        let context = Unmanaged.passUnretained(response).toOpaque()
        errorBuffer.pointee = 0
        let timeoutMs = Int(endpoint.requestTimeout.components.seconds * 1000)
            + Int(endpoint.requestTimeout.components.attoseconds / 1_000_000_000_000_000)
        let code: CURLcode = body.withUnsafeBytes { raw in
            _ = ccurl_set_string(handle, CURLOPT_URL, endpoint.url)
            _ = ccurl_set_long(handle, CURLOPT_POST, 1)
            _ = ccurl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
            _ = ccurl_set_long(handle, CURLOPT_POSTFIELDSIZE, raw.count)
            _ = ccurl_set_headers(handle, headers)
            _ = ccurl_set_string(handle, CURLOPT_USERAGENT, userAgent)
            _ = ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, max(1, timeoutMs))
            _ = ccurl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, min(timeoutMs, 10_000)))
            _ = ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
            _ = ccurl_set_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                let capture = Unmanaged<ResponseCapture>.fromOpaque(context!).takeUnretainedValue()
                capture.body(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            })
            _ = ccurl_set_pointer(handle, CURLOPT_WRITEDATA, context)
            _ = ccurl_set_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                let capture = Unmanaged<ResponseCapture>.fromOpaque(context!).takeUnretainedValue()
                capture.header(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            })
            _ = ccurl_set_pointer(handle, CURLOPT_HEADERDATA, context)
            if whileSending != nil {
                _ = ccurl_set_progress(handle, { context, _, _, _, uploaded in
                    let capture = Unmanaged<ResponseCapture>.fromOpaque(context!).takeUnretainedValue()
                    if uploaded > 0 { capture.sending() }
                    return 0
                }, context)
            } else {
                _ = ccurl_set_progress(handle, nil, nil)
            }
            if let caBundle {
                caBundle.withUnsafeBytes { ca in
                    _ = ccurl_set_ca_blob(handle, UnsafeMutableRawPointer(mutating: ca.baseAddress), ca.count)
                }
            }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let detail = errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
            return .failed(Self.failure(of: code), message: detail)
        }
        return .answered(status: ccurl_response_code(handle), retryAfterSeconds: response.retryAfterSeconds,
                         firstBodyLine: response.firstBodyLine)
    }

    private static func failure(of code: CURLcode) -> DeliveryFailure {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR: .tls
        default: .connection
        }
    }
}

/// What a response said that delivery needs: `Retry-After` and the body's first line.
private final class ResponseCapture {
    private var bodyStart: [UInt8] = []
    private(set) var retryAfterSeconds: Double?
    private var whileSending: (() -> Void)?

    init(whileSending: (() -> Void)?) {
        self.whileSending = whileSending
    }

    func sending() {
        let call = whileSending
        whileSending = nil
        call?()
    }

    func body(_ bytes: UnsafeRawBufferPointer) {
        if bodyStart.count < 512 { bodyStart.append(contentsOf: bytes.prefix(512 - bodyStart.count)) }
    }

    func header(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") { retryAfterSeconds = nil }  // a new response (after a 100)
        guard let colon = line.firstIndex(of: ":"),
              line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "retry-after" else { return }
        retryAfterSeconds = RetryAfter.seconds(line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines),
                                               now: Date())
    }

    var firstBodyLine: String {
        let text = String(decoding: bodyStart, as: UTF8.self)
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `Retry-After`: delta seconds or an HTTP date (RFC 9110 section 10.2.3).
public enum RetryAfter {
    public static func seconds(_ value: String, now: Date) -> Double? {
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = format.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

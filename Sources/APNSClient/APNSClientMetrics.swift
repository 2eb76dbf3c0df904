import APNSCore
import Metrics
import NIOConcurrencyHelpers

/// The sender's metrics (swift-metrics; Prometheus names once exported): notifications sent,
/// answers by status and reason, latency, in flight, connections, reconnects, GOAWAYs.
struct APNSClientMetrics: Sendable {
    let sent = Counter(label: "apns_notifications_sent")
    let inFlight = Meter(label: "apns_notifications_in_flight")
    let latency = Timer(label: "apns_request_duration")
    let connections = Meter(label: "apns_connections_open")
    let reconnects = Counter(label: "apns_reconnects")
    let goAways = Counter(label: "apns_goaways")
    let retries = Counter(label: "apns_retries")
    /// Streams reset and queued requests failed because their deadline passed.
    let timeouts = Counter(label: "apns_timeouts")

    private let responses = NIOLockedValueBox<[ResponseKey: Counter]>([:])
    /// 200 without a reason, nearly every answer: counted without the lock and the lookup.
    private let accepted = Counter(label: "apns_responses", dimensions: [("status", "200"), ("reason", "")])

    private struct ResponseKey: Hashable {
        var status: Int
        var reason: String
    }

    /// Counts an answer; counters are made once per status and reason, not per answer.
    func answered(_ response: APNSResponse) {
        if response.status == 200, response.reason == nil { return accepted.increment() }
        let key = ResponseKey(status: response.status, reason: response.reason?.rawValue ?? "")
        let counter = responses.withLockedValue { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "apns_responses", dimensions: [("status", String(key.status)), ("reason", key.reason)])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    func failed(_ error: APNSClientError) {
        Counter(label: "apns_failures", dimensions: [("error", error.reason)]).increment()
    }
}

import APNSCore
import Metrics

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

    func answered(_ response: APNSResponse) {
        Counter(
            label: "apns_responses",
            dimensions: [("status", String(response.status)), ("reason", response.reason?.rawValue ?? "")]
        ).increment()
    }

    func failed(_ error: APNSClientError) {
        Counter(label: "apns_failures", dimensions: [("error", error.detail)]).increment()
    }
}

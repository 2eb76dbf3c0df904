import Foundation
import HeraldCore
import Logging
import Metrics
import ServiceLifecycle

/// Exports when each app's certificates expire, as the gauge
/// `herald_apns_certificate_expiry_timestamp_seconds{app, credential, state}` (UNIX seconds),
/// read from the database at start and every ten minutes, so the alert
/// `HeraldAPNsCertificateExpiring` (ops/prometheus/alerts.yml) warns 30 days ahead on any
/// instance. A certificate retired or removed stops being exported.
struct CertificateExpiryService: Service {
    public static let metric = "herald_apns_certificate_expiry_timestamp_seconds"
    public let apps: any AppRepository
    public let interval: Duration
    public let migrated: MigrationGate
    public let logger: Logger

    public init(apps: any AppRepository, interval: Duration = .seconds(600), after migrated: MigrationGate, logger: Logger) {
        self.apps = apps
        self.interval = interval
        self.migrated = migrated
        self.logger = logger
    }

    public func run() async throws {
        guard await migrated.wait() else { return }
        do {
            try await cancelWhenGracefulShutdown {
                var exported = CertificateGauges()
                defer { exported.update([]) }
                while true {
                    do {
                        exported.update(try await apps.certificateExpiries())
                    } catch {
                        // The figures stay as they were; the next turn reads them again.
                        logger.warning(
                            "cannot read certificate expiries", metadata: ["error.type": "\(type(of: error))"])
                    }
                    try await Task.sleep(for: interval)
                }
            }
        } catch is CancellationError {
            // Shutting down.
        }
    }
}

/// The exported gauges, by their labels; a certificate no longer listed has its gauge removed.
struct CertificateGauges {
    private let factory: any MetricsFactory
    private var gauges: [[String]: Gauge] = [:]

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    public mutating func update(_ expiries: [CertificateExpiry]) {
        var seen: Set<[String]> = []
        for expiry in expiries {
            let labels = [expiry.bundleID, String(expiry.credentialID), expiry.state.rawValue]
            seen.insert(labels)
            let gauge =
                gauges[labels]
                ?? Gauge(
                    label: CertificateExpiryService.metric,
                    dimensions: [("app", labels[0]), ("credential", labels[1]), ("state", labels[2])], factory: factory)
            gauges[labels] = gauge
            gauge.record(expiry.expiresAt.timeIntervalSince1970)
        }
        for (labels, gauge) in gauges where !seen.contains(labels) {
            gauge.destroy()
            gauges[labels] = nil
        }
    }
}

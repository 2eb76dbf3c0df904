import Foundation

extension APNSNotification {
    /// `:path` is this prefix and the device token in lowercase hex (docs/apns.md "Requests").
    public static let pathPrefix = "/3/device/"

    /// The request's headers in the order they are written (docs/apns.md "Requests"):
    /// `:method`, `:scheme`, `:path`, `apns-push-type`, `apns-priority`, `apns-topic`,
    /// `apns-expiration` (if set), `apns-collapse-id` (if set), `apns-id`, `authorization`
    /// (token auth only).
    ///
    /// - Parameters:
    ///   - providerToken: the ES256 JWT, sent as `authorization: bearer <jwt>`; `nil` for
    ///     certificate-based auth, where APNs ignores the header.
    ///   - indexing: the connection's record of what it has sent; updated here.
    public func requestHeaders(
        providerToken: String?,
        indexing: inout HeaderIndexingState
    ) -> [APNSHeader] {
        requestHeaders(authorization: providerToken.map { "bearer " + $0 }, indexing: &indexing)
    }

    /// The same with the `authorization` value whole (`bearer <jwt>`): a connection makes it
    /// once per provider token instead of once per request.
    public func requestHeaders(
        authorization: String?,
        indexing: inout HeaderIndexingState
    ) -> [APNSHeader] {
        var headers = [APNSHeader]()
        headers.reserveCapacity(10)
        headers.append(APNSHeader(name: ":method", value: "POST", indexing: .incremental))
        headers.append(APNSHeader(name: ":scheme", value: "https", indexing: .incremental))
        // docs/apns.md "Header compression": `:path` is unique per device, so literal without indexing.
        headers.append(APNSHeader(name: ":path", value: Self.pathPrefix + token.hex, indexing: .withoutIndexing))
        // docs/apns.md "Requests": always send apns-push-type.
        headers.append(APNSHeader(name: "apns-push-type", value: pushType.headerValue, indexing: .incremental))
        headers.append(APNSHeader(name: "apns-priority", value: priority.headerValue, indexing: .incremental))
        headers.append(APNSHeader(name: "apns-topic", value: topic, indexing: .incremental))
        // docs/apns.md "Header compression": apns-expiration, apns-collapse-id and apns-id are indexed only the
        // first time on a connection.
        if let expiration {
            let headerIndexing = indexing.nextExpirationIndexing()
            headers.append(APNSHeader(name: "apns-expiration", value: expiration.headerValue, indexing: headerIndexing))
        }
        if let collapseID {
            headers.append(
                APNSHeader(name: "apns-collapse-id", value: collapseID, indexing: indexing.nextCollapseIDIndexing())
            )
        }
        headers.append(
            APNSHeader(name: "apns-id", value: apnsID.canonicalString, indexing: indexing.nextAPNSIDIndexing())
        )
        // docs/apns.md "Header compression": authorization is literal without indexing.
        if let authorization {
            headers.append(APNSHeader(name: "authorization", value: authorization, indexing: .withoutIndexing))
        }
        return headers
    }
}

import APNSCore
import Foundation
import Testing

@Suite struct RequestHeadersTests {
    private let apnsID = UUID(uuidString: "886313E1-3B8A-5372-9B90-0C9AEE199E5D")!

    private func notification(expiration: APNSExpiration? = nil, collapseID: String? = nil) throws -> APNSNotification {
        APNSNotification(
            token: try DeviceToken(hex: testTokenHex), bundleID: "com.example.app", expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, payload: Payload(aps: .init(alert: .body("Hi")))
        )
    }

    private func indexing(_ name: String, in headers: [APNSHeader]) -> APNSHeader.Indexing? {
        headers.first { $0.name == name }?.indexing
    }

    @Test func listsHeadersInTheDocumentedOrder() throws {
        var state = HeaderIndexingState()
        let headers = try notification(expiration: .immediately, collapseID: "score")
            .requestHeaders(providerToken: "header.claims.signature", indexing: &state)
        #expect(
            headers.map(\.name) == [
                ":method", ":scheme", ":path", "apns-push-type", "apns-priority", "apns-topic",
                "apns-expiration", "apns-collapse-id", "apns-id", "authorization",
            ]
        )
        #expect(
            headers.map(\.value) == [
                "POST", "https", "/3/device/" + testTokenHex, "alert", "10", "com.example.app",
                "0", "score", "886313e1-3b8a-5372-9b90-0c9aee199e5d", "bearer header.claims.signature",
            ]
        )
    }

    @Test func omitsOptionalHeadersAndAuthorizationUnderCertificateAuth() throws {
        var state = HeaderIndexingState()
        let headers = try notification().requestHeaders(providerToken: nil, indexing: &state)
        #expect(
            headers.map(\.name) == [
                ":method", ":scheme", ":path", "apns-push-type", "apns-priority", "apns-topic", "apns-id",
            ]
        )
    }

    @Test func writesExpirationAsUnixSeconds() throws {
        var state = HeaderIndexingState()
        let headers = try notification(expiration: .at(Date(timeIntervalSince1970: 1_700_000_000.9)))
            .requestHeaders(providerToken: nil, indexing: &state)
        #expect(headers.first(where: { $0.name == "apns-expiration" })?.value == "1700000000")
    }

    @Test func neverIndexesPathOrAuthorization() throws {
        var state = HeaderIndexingState()
        let n = try notification(expiration: .immediately, collapseID: "c")
        for _ in 0..<3 {
            let headers = n.requestHeaders(providerToken: "jwt", indexing: &state)
            #expect(indexing(":path", in: headers) == .withoutIndexing)
            #expect(indexing("authorization", in: headers) == .withoutIndexing)
            for name in [":method", ":scheme", "apns-push-type", "apns-priority", "apns-topic"] {
                #expect(indexing(name, in: headers) == .incremental)
            }
        }
    }

    @Test func indexesPerRequestHeadersOnlyTheFirstTimeOnAConnection() throws {
        var state = HeaderIndexingState()
        let n = try notification(expiration: .immediately, collapseID: "c")
        let first = n.requestHeaders(providerToken: "jwt", indexing: &state)
        let second = n.requestHeaders(providerToken: "jwt", indexing: &state)
        for name in ["apns-id", "apns-expiration", "apns-collapse-id"] {
            #expect(indexing(name, in: first) == .incremental)
            #expect(indexing(name, in: second) == .withoutIndexing)
        }

        // A new connection starts afresh.
        var fresh = HeaderIndexingState()
        #expect(indexing("apns-id", in: n.requestHeaders(providerToken: nil, indexing: &fresh)) == .incremental)
    }

    @Test func remembersEachHeaderSeparately() throws {
        var state = HeaderIndexingState()
        _ = try notification().requestHeaders(providerToken: nil, indexing: &state)
        let later = try notification(expiration: .immediately, collapseID: "c")
            .requestHeaders(providerToken: nil, indexing: &state)
        #expect(indexing("apns-id", in: later) == .withoutIndexing)
        #expect(indexing("apns-expiration", in: later) == .incremental)
        #expect(indexing("apns-collapse-id", in: later) == .incremental)
    }

    @Test func redactsTheProviderTokenWhenPrinted() throws {
        var state = HeaderIndexingState()
        let headers = try notification().requestHeaders(providerToken: "secret.jwt.value", indexing: &state)
        let authorization = try #require(headers.last)
        #expect(!"\(authorization)".contains("secret"))
    }
}

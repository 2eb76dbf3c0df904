/// The request headers the simulator reads, collected once from the decoded header list.
struct SimulatorRequestHeaders {
    var method: String?
    var path: String?
    var authorization: String?
    var topic: String?
    var pushType: String?
    var priority: String?
    var apnsID: String?
    var expiration: String?
    var collapseID: String?
    var channelID: String?
    var requestID: String?
    /// A header the simulator reads came more than once (APNs: 400 DuplicateHeaders).
    var hasDuplicates = false

    init(_ headers: [(String, String)]) {
        for (name, value) in headers {
            // HTTP/2 field names are lowercase (RFC 9113 §8.2.1); swift-nio-http2 enforces it.
            switch name {
            case ":method": hasDuplicates = Self.set(&method, value) || hasDuplicates
            case ":path": hasDuplicates = Self.set(&path, value) || hasDuplicates
            case "authorization": hasDuplicates = Self.set(&authorization, value) || hasDuplicates
            case "apns-topic": hasDuplicates = Self.set(&topic, value) || hasDuplicates
            case "apns-push-type": hasDuplicates = Self.set(&pushType, value) || hasDuplicates
            case "apns-priority": hasDuplicates = Self.set(&priority, value) || hasDuplicates
            case "apns-id": hasDuplicates = Self.set(&apnsID, value) || hasDuplicates
            case "apns-expiration": hasDuplicates = Self.set(&expiration, value) || hasDuplicates
            case "apns-collapse-id": hasDuplicates = Self.set(&collapseID, value) || hasDuplicates
            case "apns-channel-id": hasDuplicates = Self.set(&channelID, value) || hasDuplicates
            case "apns-request-id": hasDuplicates = Self.set(&requestID, value) || hasDuplicates
            default: break
            }
        }
    }

    /// Stores `value`, returning true when the slot was already taken.
    private static func set(_ slot: inout String?, _ value: String) -> Bool {
        defer { slot = value }
        return slot != nil
    }
}

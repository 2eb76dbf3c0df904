import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `POST /v1/apps/{bundleID}/events`: what users did (opened a notification, converted, or a
/// custom event the app names, with properties), as the app reports it, up to ``maximumEvents`` a call. All or nothing: one bad
/// event refuses the call, naming it (`events[3].apnsID`), and stores nothing.
struct EventController {
    static let maximumEvents = 1000
    /// Room for a full batch of conversions with tokens, user IDs and the app's own IDs.
    static let maximumBodyBytes = 1 << 20

    let directory: AppDirectory
    let events: any EventRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.post(use: record)
    }

    @Sendable func record(request: Request, context: HeraldRequestContext) async throws -> EventReceiptResponse {
        let bundleID = try context.parameters.require("bundleID")
        let principal = try context.requirePrincipal()
        try principal.requireEventAccess(bundleID: bundleID)
        let app = try await directory.require(bundleID: bundleID)
        let events = try await RequestDecoding.body(EventsBody.self, of: request, context: context, upTo: Self.maximumBodyBytes)
            .checked(now: Date())
        let receipt = try await self.events.record(appID: app.id, events: events)
        return EventReceiptResponse(
            received: events.count, stored: receipt.stored, duplicates: receipt.duplicates,
            attributed: receipt.attributed)
    }
}

struct EventReceiptResponse: ResponseEncodable {
    var received: Int
    /// Stored now; the rest were stored before (a repeat counts once).
    var stored: Int
    var duplicates: Int
    /// Stored events attributed to a campaign.
    var attributed: Int
}

/// An events body: `{"events": [{"type": "opened", "apnsID": …, "occurredAt": …}, …]}`.
struct EventsBody: Decodable {
    var events: [EventBody]

    enum CodingKeys: String, CodingKey, CaseIterable { case events }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let maximum = EventController.maximumEvents
        guard case .array(let items)? = try container.decodeIfPresent(PayloadValue.self, forKey: .events),
            (1...maximum).contains(items.count)
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .events, in: container, debugDescription: "must be an array of 1 to \(maximum) events")
        }
        events = try container.decode([EventBody].self, forKey: .events)
    }

    /// The events, each checked against `now` (a time far in the future is refused).
    func checked(now: Date) throws -> [AppEvent] {
        try events.enumerated().map { index, body in
            if let error = body.event.validate(now: now).first {
                throw Problem.invalidField("events[\(index)].\(error.field)", error.reason)
            }
            return body.event
        }
    }
}

/// One event: an open (by apns-id), a conversion (a name and a value) or a custom event (a
/// name and properties), each with the device's time and the device or user it is about.
struct EventBody: Decodable {
    var event: AppEvent

    enum CodingKeys: String, CodingKey, CaseIterable {
        case type, apnsID, occurredAt, token, userID, name, value, id, properties
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ reason: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: container, debugDescription: reason)
        }
        guard let occurredAt = try container.decodeIfPresent(Date.self, forKey: .occurredAt) else {
            throw refuse(.occurredAt, "is required: the device's time of the event")
        }
        var token: DeviceToken?
        if let hex = try container.decodeIfPresent(String.self, forKey: .token) {
            guard let parsed = try? DeviceToken(hex: hex) else {
                throw refuse(.token, "must be a device token: an even number of hex digits")
            }
            token = parsed
        }
        let userID = try container.decodeIfPresent(String.self, forKey: .userID)
        let eventID = try container.decodeIfPresent(String.self, forKey: .id)
        switch try container.decode(String.self, forKey: .type) {
        case "opened":
            for key in [CodingKeys.name, .value, .properties] where container.contains(key) {
                throw refuse(key, "belongs to conversions, not opens")
            }
            guard let apnsID = UUID(uuidString: try container.decode(String.self, forKey: .apnsID)) else {
                throw refuse(.apnsID, "must be the notification's apns-id, a UUID")
            }
            event = AppEvent(kind: .opened(apnsID: apnsID), occurredAt: occurredAt, token: token, userID: userID, eventID: eventID)
        case "converted":
            if container.contains(.apnsID) { throw refuse(.apnsID, "belongs to opens; a conversion names its device or user") }
            if container.contains(.properties) {
                throw refuse(.properties, "belongs to custom events; a conversion has a name and a value")
            }
            event = AppEvent(
                kind: .converted(
                    name: try container.decode(String.self, forKey: .name),
                    value: try container.decodeIfPresent(Double.self, forKey: .value)),
                occurredAt: occurredAt, token: token, userID: userID, eventID: eventID)
        case "custom":
            for key in [CodingKeys.apnsID, .value] where container.contains(key) {
                throw refuse(key, "does not belong to a custom event: give its properties")
            }
            event = AppEvent(
                kind: .custom(
                    name: try container.decode(String.self, forKey: .name),
                    properties: try container.decodeIfPresent([String: PayloadValue].self, forKey: .properties) ?? [:]),
                occurredAt: occurredAt, token: token, userID: userID, eventID: eventID)
        default:
            throw refuse(.type, "must be opened, converted or custom")
        }
    }
}

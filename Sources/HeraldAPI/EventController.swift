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
        let object = try await JSONFields.bodyObject(request, context: context, upTo: Self.maximumBodyBytes)
        let events = try EventInput.events(object, now: Date())
        do {
            let receipt = try await self.events.record(appID: app.id, events: events)
            return EventReceiptResponse(
                received: events.count, stored: receipt.stored, duplicates: receipt.duplicates,
                attributed: receipt.attributed)
        } catch let error as ValidationError {
            throw Problem.invalidField(error.field, error.reason)
        }
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

/// Reads an events body: `{"events": [{"type": "opened", "apnsID": …, "occurredAt": …}, …]}`.
enum EventInput {
    static let fields: Set<String> = ["type", "apnsID", "occurredAt", "token", "userID", "name", "value", "id", "properties"]

    static func events(_ object: [String: PayloadValue], now: Date) throws -> [AppEvent] {
        try JSONFields.refuseUnknown(object, known: ["events"])
        guard case .array(let items)? = object["events"], !items.isEmpty, items.count <= EventController.maximumEvents
        else {
            throw Problem.invalidField("events", "must be an array of 1 to \(EventController.maximumEvents) events")
        }
        var events = [AppEvent]()
        events.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let field = "events[\(index)]"
            guard let members = try JSONFields.object(item, field: field) else {
                throw Problem.invalidField(field, "must be a JSON object")
            }
            let event = try self.event(members, field: field)
            if let error = event.validate(now: now).first {
                throw Problem.invalidField("\(field).\(error.field)", error.reason)
            }
            events.append(event)
        }
        return events
    }

    private static func event(_ members: [String: PayloadValue], field: String) throws -> AppEvent {
        try JSONFields.refuseUnknown(members, known: fields, prefix: field)
        guard let occurredAt = try JSONFields.date(members["occurredAt"], field: "\(field).occurredAt") else {
            throw Problem.invalidField("\(field).occurredAt", "is required: the device's time of the event")
        }
        var token: DeviceToken?
        if let hex = try JSONFields.string(members["token"], field: "\(field).token") {
            guard let parsed = try? DeviceToken(hex: hex) else {
                throw Problem.invalidField("\(field).token", "must be a device token: an even number of hex digits")
            }
            token = parsed
        }
        let userID = try JSONFields.string(members["userID"], field: "\(field).userID")
        let eventID = try JSONFields.string(members["id"], field: "\(field).id")
        let type = try JSONFields.requiredString(members["type"], field: "\(field).type")
        switch type {
        case "opened":
            for key in ["name", "value", "properties"] where members[key] != nil {
                throw Problem.invalidField("\(field).\(key)", "belongs to conversions, not opens")
            }
            let text = try JSONFields.requiredString(members["apnsID"], field: "\(field).apnsID")
            guard let apnsID = UUID(uuidString: text) else {
                throw Problem.invalidField("\(field).apnsID", "must be the notification's apns-id, a UUID")
            }
            return AppEvent(
                kind: .opened(apnsID: apnsID), occurredAt: occurredAt, token: token, userID: userID, eventID: eventID)
        case "converted":
            if members["apnsID"] != nil {
                throw Problem.invalidField("\(field).apnsID", "belongs to opens; a conversion names its device or user")
            }
            if members["properties"] != nil {
                throw Problem.invalidField("\(field).properties", "belongs to custom events; a conversion has a name and a value")
            }
            let name = try JSONFields.requiredString(members["name"], field: "\(field).name")
            let value: Double?
            switch members["value"] {
            case nil, .null?: value = nil
            case .int(let number)?: value = Double(number)
            case .double(let number)?: value = number
            default: throw Problem.invalidField("\(field).value", "must be a number")
            }
            return AppEvent(
                kind: .converted(name: name, value: value), occurredAt: occurredAt, token: token, userID: userID,
                eventID: eventID)
        case "custom":
            for key in ["apnsID", "value"] where members[key] != nil {
                throw Problem.invalidField("\(field).\(key)", "does not belong to a custom event: give its properties")
            }
            let name = try JSONFields.requiredString(members["name"], field: "\(field).name")
            let properties = try JSONFields.object(members["properties"], field: "\(field).properties") ?? [:]
            return AppEvent(
                kind: .custom(name: name, properties: properties), occurredAt: occurredAt, token: token, userID: userID,
                eventID: eventID)
        default:
            throw Problem.invalidField("\(field).type", "must be opened, converted or custom")
        }
    }
}

import APNSCore
import Foundation
import HeraldCore

/// The campaign builder's form, read into a ``CampaignDraft``. Field names are the API's field
/// paths (`audience.languages`, `pushOptions.collapseID`, `variants[1].weight`), so the draft's
/// own validation (the one the API runs) names the input each error belongs beside.
struct CampaignForm {
    static let maximumVariants = AudienceSplit.maximumVariants

    var form: FormData
    /// Errors by field path, in the order found.
    var errors: [(field: String, reason: String)] = []

    init(_ form: FormData) { self.form = form }

    /// The draft, or nil with `errors` filled (parse errors first, then the draft's rules).
    mutating func draft(appID: (String) -> Int64?) -> CampaignDraft? {
        errors = []
        var draft = CampaignDraft(appID: 0, name: form.raw("name"), templateName: form["templateName"] ?? "")
        if let bundleID = form["app"], let id = appID(bundleID) {
            draft.appID = id
        } else {
            fail("app", "choose one of the apps")
        }
        draft.notes = form["notes"]
        switch form["localization"] ?? "server" {
        case "server": draft.localization = .server
        case "client": draft.localization = .client
        default: fail("localization", "must be server or client")
        }
        draft.variables = object("variables") ?? [:]
        draft.audience = audience()
        draft.pushOptions = pushOptions(prefix: "pushOptions")
        switch form["schedule"] ?? "now" {
        case "now": break
        case "at": draft.sendAt = utcTime("sendAt", required: true)
        case "local":
            if let date = form["delivery.date"], let time = form["delivery.time"] {
                let late = LocalDelivery.LatePolicy(rawValue: form["delivery.latePolicy"] ?? "send")
                if late == nil { fail("delivery.latePolicy", "must be send or skip") }
                draft.localDelivery = LocalDelivery(date: date, time: time, latePolicy: late ?? .send)
            } else {
                fail("delivery.date", "give the date and the time of day to deliver at")
            }
        case "best":
            if let date = form["bestTime.date"] {
                let window = integer("bestTime.windowHours")
                if window == nil { fail("bestTime.windowHours", "give the window's length, 1 to 24 hours") }
                draft.localDelivery = LocalDelivery(
                    date: date, time: form["bestTime.time"] ?? "00:00", latePolicy: .send,
                    bestTime: BestTimeWindow(
                        windowHours: window ?? 0, holdoutBasisPoints: percentBasisPoints("bestTime.holdoutPercent") ?? 0))
            } else {
                fail("bestTime.date", "give the date whose window to deliver in")
            }
        default: fail("schedule", "must be now, at a time, at a local time or at each device's best hour")
        }
        if let mode = form["quietHours"] {
            if let parsed = QuietHoursMode(rawValue: mode) {
                draft.quietHoursMode = parsed
            } else {
                fail("quietHours", "must be hold, skip or ignore")
            }
        }
        draft.rateLimit = integer("rateLimit")
        draft.holdoutBasisPoints = percentBasisPoints("holdoutPercent") ?? 0
        if let hours = integer("attributionWindowHours") {
            draft.attributionWindow = hours.multipliedReportingOverflow(by: 3600).overflow ? -1 : hours * 3600
        }
        draft.variants = variants()
        guard errors.isEmpty else { return nil }
        for error in draft.validate() { fail(error.field, error.reason) }
        return errors.isEmpty ? draft : nil
    }

    /// The audience alone (the live estimate reads only this).
    mutating func audience() -> AudienceFilter {
        var audience = AudienceFilter()
        if let text = form["audience.environment"] {
            if let environment = APNSEnvironment(rawValue: text) {
                audience.environment = environment
            } else {
                fail("audience.environment", "must be sandbox or production")
            }
        }
        if let name = form["audience.savedSegment"] {
            audience.savedSegment = SegmentReference(name: name)
        }
        audience.languages = list("audience.languages")
        audience.timeZones = list("audience.timeZones")
        audience.userIDs = list("audience.userIDs")
        audience.registeredSince = utcTime("audience.registeredSince", required: false)
        audience.registeredBefore = utcTime("audience.registeredBefore", required: false)
        if let attributes = object("audience.attributes") {
            do {
                audience.attributes = try PayloadValueDecoder().decode(
                    [String: AudienceFilter.AttributeCondition].self, from: .object(attributes))
            } catch {
                fail("audience.attributes", "must map each attribute to a value or to {\"in\": [values]}")
            }
        }
        var authorization = AudienceFilter.AuthorizationCondition()
        authorization.allowsAlerts = flag("audience.authorization.allowsAlerts")
        authorization.badge = flag("audience.authorization.badge")
        authorization.sound = flag("audience.authorization.sound")
        if authorization != AudienceFilter.AuthorizationCondition() { audience.authorization = authorization }
        return audience
    }

    mutating func pushOptions(prefix: String) -> PushOptions {
        var options = PushOptions()
        if let text = form["\(prefix).pushType"] {
            if let type = PushType(rawValue: text), type == .alert || type == .background {
                options.pushType = type
            } else {
                fail("\(prefix).pushType", "must be alert or background")
            }
        }
        if let priority = integer("\(prefix).priority") {
            if let parsed = Priority(rawValue: priority) { options.priority = parsed } else { fail("\(prefix).priority", "must be 10, 5 or 1") }
        }
        options.timeToLive = integer("\(prefix).timeToLive")
        options.collapseID = form["\(prefix).collapseID"]
        options.threadID = form["\(prefix).threadID"]
        options.category = form["\(prefix).category"]
        if let text = form["\(prefix).interruptionLevel"] {
            if let level = Payload.InterruptionLevel(rawValue: text) {
                options.interruptionLevel = level
            } else {
                fail("\(prefix).interruptionLevel", "must be passive, active, time-sensitive or critical")
            }
        }
        if let text = form["\(prefix).relevanceScore"] {
            if let score = Double(text), score.isFinite {
                options.relevanceScore = score
            } else {
                fail("\(prefix).relevanceScore", "must be a number from 0 to 1")
            }
        }
        options.custom = object("\(prefix).custom")
        return options
    }

    mutating func variants() -> [CampaignVariant] {
        var variants = [CampaignVariant]()
        for index in 0..<Self.maximumVariants {
            let prefix = "variants[\(index)]"
            guard let name = form["\(prefix).name"] else { continue }
            let options = pushOptions(prefix: "\(prefix).pushOptions")
            variants.append(
                CampaignVariant(
                    name: name, templateName: form["\(prefix).templateName"], variables: object("\(prefix).variables"),
                    pushOptions: options == PushOptions() ? nil : options, weight: integer("\(prefix).weight") ?? 1))
        }
        return variants
    }

    // MARK: - Typed fields

    mutating func fail(_ field: String, _ reason: String) { errors.append((field, reason)) }

    /// The first error at `field` or below it (`audience.languages` holds `audience.languages[2]`).
    func error(_ field: String) -> String? {
        errors.first { $0.field == field || $0.field.hasPrefix(field + "[") || $0.field.hasPrefix(field + ".") }?.reason
    }

    /// Comma- or line-separated values; nil when empty.
    func list(_ field: String) -> [String]? {
        let values = form.raw(field).split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return values.isEmpty ? nil : values
    }

    mutating func integer(_ field: String) -> Int? {
        guard let text = form[field] else { return nil }
        guard let value = Int(text) else {
            fail(field, "must be a whole number")
            return nil
        }
        return value
    }

    /// `12.5` → 1250 basis points.
    mutating func percentBasisPoints(_ field: String) -> Int? {
        guard let text = form[field] else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0, value <= 100 else {
            fail(field, "must be from 0 to 50")
            return nil
        }
        return Int((value * 100).rounded())
    }

    /// "yes" / "no" / "" (any).
    mutating func flag(_ field: String) -> Bool? {
        switch form[field] {
        case nil: return nil
        case "yes": return true
        case "no": return false
        default:
            fail(field, "must be yes, no or any")
            return nil
        }
    }

    mutating func object(_ field: String) -> [String: PayloadValue]? {
        guard let text = form[field] else { return nil }
        guard let object = ConsoleFormat.jsonObject(text) else {
            fail(field, "must be a JSON object, e.g. {\"key\": \"value\"}")
            return nil
        }
        return object
    }

    /// `2026-12-01T09:30` (a browser's datetime-local), read as UTC.
    mutating func utcTime(_ field: String, required: Bool) -> Date? {
        guard let text = form[field] else {
            if required { fail(field, "give the time to send at (UTC)") }
            return nil
        }
        let calendar = ConsoleFormat.utc
        let parts = text.split(whereSeparator: { $0 == "T" || $0 == " " || $0 == "-" || $0 == ":" }).map { Int($0) }
        guard parts.count >= 5, parts.count <= 6, parts.allSatisfy({ $0 != nil }), let year = parts[0], (1970...9999).contains(year),
            let date = calendar.date(
                from: DateComponents(
                    year: year, month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts.count > 5 ? parts[5] : 0)),
            calendar.component(.day, from: date) == parts[2]
        else {
            fail(field, "must be a date and time such as 2026-12-01T09:30 (UTC)")
            return nil
        }
        return date
    }
}

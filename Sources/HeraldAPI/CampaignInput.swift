import APNSCore
import Foundation
import HeraldCore

/// Reads campaign bodies (`POST /v1/campaigns`, `PATCH`, `/estimate`), naming the exact
/// field that is wrong and reporting every rule a draft breaks at once.
enum CampaignInput {
    static let draftFields: Set<String> = [
        "name", "notes", "templateName", "localization", "variables", "audience", "pushOptions", "sendAt", "rateLimit",
        "variants", "holdoutPercent", "attributionWindowHours", "delivery", "quietHours",
    ]
    static let variantFields: Set<String> = [
        "name", "templateName", "templateVersion", "variables", "pushOptions", "weight",
    ]
    static let audienceFields: Set<String> = [
        "environment", "languages", "attributes", "userIDs", "registeredSince", "registeredBefore", "authorization",
        "timeZones", "segment", "savedSegment",
    ]
    static let audienceAuthorizationFields: Set<String> = [
        "statuses", "allowsAlerts", "badge", "sound", "criticalAlert", "timeSensitive",
    ]
    static let pushOptionFields: Set<String> = [
        "pushType", "priority", "expiration", "timeToLive", "collapseID", "threadID", "category", "interruptionLevel",
        "relevanceScore", "custom",
    ]
    static let liveActivityFields: Set<String> = [
        "attributesType", "attributes", "contentState", "activityID", "staleDate", "relevanceScore", "inputPushToken",
        "inputPushChannel",
    ]

    /// A new draft: the body names its app by bundle ID (`app`); `resolveApp` finds it.
    static func draft(
        _ object: [String: PayloadValue], resolveApp: (String) async throws -> App
    ) async throws -> CampaignDraft {
        try JSONFields.refuseUnknown(object, known: draftFields.union(["app"]))
        let app = try await resolveApp(try JSONFields.requiredString(object["app"], field: "app"))
        let patch = try fields(object, allowing: ["app"])
        guard let name = patch.name else { throw Problem.invalidField("name", "is required") }
        guard let templateName = patch.templateName else { throw Problem.invalidField("templateName", "is required") }
        let draft = CampaignDraft(
            appID: app.id, name: name, notes: patch.notes ?? nil, templateName: templateName,
            localization: patch.localization ?? .server, variables: patch.variables ?? [:],
            audience: patch.audience ?? AudienceFilter(), pushOptions: patch.pushOptions ?? PushOptions(),
            sendAt: patch.sendAt ?? nil, rateLimit: patch.rateLimit ?? nil, variants: patch.variants ?? [],
            holdoutBasisPoints: patch.holdoutBasisPoints ?? 0,
            attributionWindow: patch.attributionWindow ?? CampaignDraft.defaultAttributionWindow,
            localDelivery: patch.localDelivery ?? nil, quietHoursMode: patch.quietHoursMode ?? .hold)
        try JSONFields.check(draft.validate(), what: "campaign")
        return draft
    }

    /// Changes to a draft: fields left out stay; `null` clears `notes`, `sendAt`, `rateLimit`.
    static func patch(_ object: [String: PayloadValue]) throws -> CampaignPatch {
        let patch = try fields(object)
        try JSONFields.check(patch.validate(), what: "campaign")
        return patch
    }

    /// The draft fields present in `object`, each of the right type; the rules are the caller's to check.
    private static func fields(_ object: [String: PayloadValue], allowing extra: Set<String> = []) throws -> CampaignPatch {
        try JSONFields.refuseUnknown(object, known: draftFields.union(extra))
        var patch = CampaignPatch()
        patch.name = try JSONFields.string(object["name"], field: "name")
        if let notes = object["notes"] { patch.notes = .some(try JSONFields.string(notes, field: "notes")) }
        patch.templateName = try JSONFields.string(object["templateName"], field: "templateName")
        if let text = try JSONFields.string(object["localization"], field: "localization") {
            guard let mode = Campaign.LocalizationMode(rawValue: text) else {
                throw Problem.invalidField("localization", "must be server or client")
            }
            patch.localization = mode
        }
        patch.variables = try JSONFields.object(object["variables"], field: "variables")
        patch.audience = try audience(object["audience"], field: "audience")
        patch.pushOptions = try pushOptions(object["pushOptions"], field: "pushOptions")
        if let sendAt = object["sendAt"] { patch.sendAt = .some(try JSONFields.date(sendAt, field: "sendAt")) }
        if let rateLimit = object["rateLimit"] {
            patch.rateLimit = .some(try JSONFields.int(rateLimit, field: "rateLimit"))
        }
        patch.variants = try variants(object["variants"])
        if let value = object["delivery"] { patch.localDelivery = .some(try delivery(value)) }
        if let text = try JSONFields.string(object["quietHours"], field: "quietHours") {
            guard let mode = QuietHoursMode(rawValue: text) else {
                throw Problem.invalidField("quietHours", "must be hold, skip or ignore")
            }
            patch.quietHoursMode = mode
        }
        if let basisPoints = try percent(object["holdoutPercent"], field: "holdoutPercent") {
            patch.holdoutBasisPoints = basisPoints
        }
        if let hours = try JSONFields.int(object["attributionWindowHours"], field: "attributionWindowHours") {
            guard (1...720).contains(hours) else {
                throw Problem.invalidField("attributionWindowHours", "must be a whole number of hours from 1 to 720")
            }
            patch.attributionWindow = hours * 3600
        }
        return patch
    }

    /// A share of 0 to 50 percent, kept in basis points (2.5 % is 250); nil when absent or null.
    static func percent(_ value: PayloadValue?, field: String) throws -> Int? {
        guard let value, value != .null else { return nil }
        let percent: Double
        switch value {
        case .int(let number): percent = Double(number)
        case .double(let number): percent = number
        default: throw Problem.invalidField(field, "must be a number from 0 to 50")
        }
        guard percent.isFinite, (0...50).contains(percent) else {
            throw Problem.invalidField(field, "must be a number from 0 to 50")
        }
        return Int((percent * 100).rounded())
    }

    /// `{"mode": "now"}` (or null): at `sendAt`, or at once; `{"mode": "localTime", "date":
    /// "2026-12-01", "time": "10:00", "latePolicy": "send" | "skip"}`: at that time in each
    /// device's zone.
    static func delivery(_ value: PayloadValue) throws -> LocalDelivery? {
        guard value != .null else { return nil }
        guard let members = try JSONFields.object(value, field: "delivery") else { return nil }
        let mode = try JSONFields.requiredString(members["mode"], field: "delivery.mode")
        switch mode {
        case "now":
            try JSONFields.refuseUnknown(members, known: ["mode"], prefix: "delivery")
            return nil
        case "localTime":
            try JSONFields.refuseUnknown(members, known: ["mode", "date", "time", "latePolicy"], prefix: "delivery")
            var policy = LocalDelivery.LatePolicy.send
            if let text = try JSONFields.string(members["latePolicy"], field: "delivery.latePolicy") {
                guard let parsed = LocalDelivery.LatePolicy(rawValue: text) else {
                    throw Problem.invalidField("delivery.latePolicy", "must be send or skip")
                }
                policy = parsed
            }
            return LocalDelivery(
                date: try JSONFields.requiredString(members["date"], field: "delivery.date"),
                time: try JSONFields.requiredString(members["time"], field: "delivery.time"), latePolicy: policy)
        case "bestTime":
            try JSONFields.refuseUnknown(
                members, known: ["mode", "date", "time", "windowHours", "bestTimeHoldoutPercent", "latePolicy"],
                prefix: "delivery")
            var policy = LocalDelivery.LatePolicy.send
            if let text = try JSONFields.string(members["latePolicy"], field: "delivery.latePolicy") {
                guard let parsed = LocalDelivery.LatePolicy(rawValue: text) else {
                    throw Problem.invalidField("delivery.latePolicy", "must be send or skip")
                }
                policy = parsed
            }
            guard let hours = try JSONFields.int(members["windowHours"], field: "delivery.windowHours") else {
                throw Problem.invalidField("delivery.windowHours", "is required: the window's length, 1 to 24 hours")
            }
            let holdout = try percent(members["bestTimeHoldoutPercent"], field: "delivery.bestTimeHoldoutPercent") ?? 0
            return LocalDelivery(
                date: try JSONFields.requiredString(members["date"], field: "delivery.date"),
                time: try JSONFields.string(members["time"], field: "delivery.time") ?? "00:00", latePolicy: policy,
                bestTime: BestTimeWindow(windowHours: hours, holdoutBasisPoints: holdout))
        default:
            throw Problem.invalidField("delivery.mode", "must be now, localTime or bestTime")
        }
    }

    /// Push options; nil when absent.
    static func pushOptions(_ value: PayloadValue?, field: String) throws -> PushOptions? {
        guard let value, value != .null else { return nil }
        let members = try JSONFields.object(value, field: field) ?? [:]
        try JSONFields.refuseUnknown(members, known: pushOptionFields.union(["liveActivity"]), prefix: field)
        if let start = try JSONFields.object(members["liveActivity"], field: "\(field).liveActivity") {
            try JSONFields.refuseUnknown(start, known: liveActivityFields, prefix: "\(field).liveActivity")
        }
        return try JSONFields.decode(PushOptions.self, from: value, field: field)
    }

    /// The variants of an A/B test; `[]` or `null` removes them, absent leaves them. A variant
    /// without a name is called by its letter (A, B, …), without a weight weighs 1.
    static func variants(_ value: PayloadValue?) throws -> [CampaignVariant]? {
        guard let value else { return nil }
        if value == .null { return [] }
        guard case .array(let items) = value else {
            throw Problem.invalidField("variants", "must be an array of 2 to \(AudienceSplit.maximumVariants) variants")
        }
        guard items.count <= AudienceSplit.maximumVariants else {
            throw Problem.invalidField(
                "variants", "an A/B test has 2 to \(AudienceSplit.maximumVariants) variants, got \(items.count)")
        }
        var variants = [CampaignVariant]()
        for (index, item) in items.enumerated() {
            let field = "variants[\(index)]"
            guard let members = try JSONFields.object(item, field: field) else {
                throw Problem.invalidField(field, "must be a JSON object")
            }
            try JSONFields.refuseUnknown(members, known: variantFields, prefix: field)
            let letter = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index)))
            variants.append(
                CampaignVariant(
                    name: try JSONFields.string(members["name"], field: "\(field).name") ?? letter,
                    templateName: try JSONFields.string(members["templateName"], field: "\(field).templateName"),
                    templateVersion: try JSONFields.int(members["templateVersion"], field: "\(field).templateVersion"),
                    variables: try JSONFields.object(members["variables"], field: "\(field).variables"),
                    pushOptions: try pushOptions(members["pushOptions"], field: "\(field).pushOptions"),
                    weight: try JSONFields.int(members["weight"], field: "\(field).weight") ?? 1))
        }
        return variants
    }

    /// An audience filter; nil when absent.
    static func audience(_ value: PayloadValue?, field: String) throws -> AudienceFilter? {
        guard let value, value != .null else { return nil }
        let members = try JSONFields.object(value, field: field) ?? [:]
        try JSONFields.refuseUnknown(members, known: audienceFields, prefix: field)
        if let authorization = try JSONFields.object(members["authorization"], field: "\(field).authorization") {
            try JSONFields.refuseUnknown(
                authorization, known: audienceAuthorizationFields, prefix: "\(field).authorization")
        }
        switch members["savedSegment"] {
        case nil, .null?, .string?:
            break
        case .object(let reference)?:
            try JSONFields.refuseUnknown(reference, known: ["name", "version"], prefix: "\(field).savedSegment")
            _ = try JSONFields.requiredString(reference["name"], field: "\(field).savedSegment.name")
            _ = try JSONFields.int(reference["version"], field: "\(field).savedSegment.version")
        default:
            throw Problem.invalidField(
                "\(field).savedSegment", "must be a saved segment's name, or {\"name\": …, \"version\": N}")
        }
        // A segment is read by its own rules, each problem named by its JSON path.
        var segment: Segment?
        if let json = members["segment"], json != .null { segment = try Segment(json: json, path: "\(field).segment") }
        var plain = members
        plain["segment"] = nil
        var filter = try JSONFields.decode(AudienceFilter.self, from: .object(plain), field: field)
        filter.segment = segment
        return filter
    }
}

/// A campaign file (`herald campaigns create --file`): the body `POST /v1/campaigns` takes,
/// read by the same rules.
public enum CampaignFile {
    /// The draft the file describes, or the first problem as `field: reason`.
    public static func draft(json bytes: [UInt8], resolveApp: @escaping (String) async throws -> App?) async throws -> CampaignDraft {
        try await CampaignFileError.reading {
            guard case .object(let object) = try JSONFields.parse(bytes) else {
                throw Problem.invalidRequest("the file must hold a JSON object: a campaign")
            }
            return try await CampaignInput.draft(object) { bundleID in
                guard let app = try await resolveApp(bundleID) else {
                    throw Problem.invalidField("app", "no app has the bundle ID \(bundleID)")
                }
                return app
            }
        }
    }
}

/// Why a campaign, series or segment file cannot be used, in one line.
public struct CampaignFileError: Error, CustomStringConvertible {
    public let description: String

    /// `body`'s result, its problem (a `Problem` or a `ValidationError`) as one line naming the field.
    static func reading<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error {
            throw line(error)
        }
    }

    static func reading<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error {
            throw line(error)
        }
    }

    private static func line(_ error: any Error) -> any Error {
        if let problem = error as? Problem {
            return CampaignFileError(description: problem.field.map { "\($0): \(problem.detail)" } ?? problem.detail)
        }
        if let error = error as? ValidationError { return CampaignFileError(description: "\(error.field): \(error.reason)") }
        return error
    }
}

/// A series file (`herald series create --file`): the body `POST /v1/series` takes, read by the
/// same rules.
public enum SeriesFile {
    /// The series' name, the campaign each run copies and its schedule, or the first problem.
    public static func series(
        json bytes: [UInt8], now: Date, resolveApp: @escaping (String) async throws -> App?
    ) async throws -> (name: String, blueprint: CampaignDraft, recurrence: Recurrence) {
        try await CampaignFileError.reading {
            guard case .object(let object) = try JSONFields.parse(bytes) else {
                throw Problem.invalidRequest("the file must hold a JSON object: a series")
            }
            try JSONFields.refuseUnknown(object, known: SeriesInput.fields)
            let bundleID = try JSONFields.requiredString(object["app"], field: "app")
            guard let app = try await resolveApp(bundleID) else {
                throw Problem.invalidField("app", "no app has the bundle ID \(bundleID)")
            }
            let name = try JSONFields.requiredString(object["name"], field: "name")
            if let problem = CampaignSeries.nameProblem(name) { throw Problem.invalidField("name", problem) }
            return (
                name, try await SeriesInput.blueprint(object["campaign"], app: app, name: name),
                try SeriesInput.schedule(object["schedule"], now: now)
            )
        }
    }
}

/// A segment file (`herald segments create --file`): the JSON form docs/segments.md describes.
public enum SegmentFile {
    /// The segment, or the first problem with its JSON path.
    public static func segment(json bytes: [UInt8]) throws -> Segment {
        try CampaignFileError.reading { try Segment(json: try JSONFields.parse(bytes)) }
    }
}

/// A journey's graph read from a file for `herald journeys` (docs/journeys.md), checked as the
/// API checks it.
public enum JourneyFile {
    /// The graph as written, or the first problem with its JSON path.
    public static func journey(json bytes: [UInt8]) throws -> PayloadValue {
        try CampaignFileError.reading {
            let value = try JSONFields.parse(bytes)
            _ = try JourneyDefinition(json: value)
            return value
        }
    }
}

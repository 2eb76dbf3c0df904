import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps/{bundleID}/segments`: an app's saved segments, in versions, each answered with its
/// live count and a sample of matching devices; `POST …/segments/evaluate` counts a segment
/// that is not saved (docs/segments.md). Marketing and admin keys.
struct SegmentController {
    /// `POST …/segments`: a name, a note, and the conditions (``Segment``'s own JSON).
    struct CreateBody: Decodable {
        var name: String
        var description: String?
        var segment: PayloadValue
    }

    /// `PATCH …/segments/{name}`: new conditions (a new version), a new note, or both; a
    /// description given as `null` is removed.
    struct EditBody: Decodable {
        var segment: PayloadValue?
        var description: String??

        enum CodingKeys: String, CodingKey, CaseIterable { case segment, description }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            segment = try container.decodeIfPresent(PayloadValue.self, forKey: .segment)
            description =
                container.contains(.description)
                ? .some(try container.decodeIfPresent(String.self, forKey: .description)) : nil
        }
    }

    /// `GET …/segments/{name}`: a version (the latest without) and how many matching devices
    /// to show.
    struct ShowQuery: Decodable {
        var version: Int?
        var sample: Int?
    }

    /// `POST …/segments/evaluate`: the conditions and how many matching devices to show.
    struct EvaluateBody: Decodable {
        var segment: PayloadValue
        var sample: Int?
    }

    static let maximumSample = 50

    let directory: AppDirectory
    let segments: any SegmentRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get("segments", use: list)
        group.post("segments", use: create)
        group.post("segments/evaluate", use: evaluate)
        group.get("segments/:name", use: show)
        group.patch("segments/:name", use: edit)
        group.delete("segments/:name", use: archive)
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<SegmentResponse> {
        let app = try await self.app(context)
        let body = try await RequestDecoding.body(CreateBody.self, of: request, context: context)
        let name = body.name
        if let problem = SavedSegment.nameProblem(name) { throw Problem.invalidField("name", problem) }
        let description = try Self.checked(description: body.description)
        let segment = try Segment(json: body.segment)
        let actor = try context.requirePrincipal().keyPrefix
        switch try await segments.create(appID: app.id, name: name, description: description, segment: segment, actor: actor) {
        case .saved(let saved):
            return EditedResponse(status: .created, response: try await response(saved, app: app, sample: 0))
        case .nameTaken:
            throw Problem(
                status: .conflict, slug: "segment-name-taken", title: "The name is taken",
                detail: "this app has a segment named \(name)", field: "name")
        case .unknown:
            throw Self.unknownSegment()
        }
    }

    @Sendable func edit(request: Request, context: HeraldRequestContext) async throws -> SegmentResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let body = try await RequestDecoding.body(EditBody.self, of: request, context: context)
        var segment: Segment?
        if let json = body.segment {
            guard json != .null else { throw Problem.invalidField("segment", "cannot be removed; delete the segment instead") }
            segment = try Segment(json: json)
        }
        let description: String?? = try body.description.map { try Self.checked(description: $0) }
        guard segment != nil || description != nil else {
            throw Problem.invalidRequest("give segment or description")
        }
        let actor = try context.requirePrincipal().keyPrefix
        guard
            case .saved(let saved) = try await segments.update(
                appID: app.id, name: name, segment: segment, description: description, actor: actor)
        else { throw Self.unknownSegment() }
        return try await response(saved, app: app, sample: 0)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> SegmentResponse {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let query = try RequestDecoding.query(ShowQuery.self, of: request)
        let version = try PageQuery.version(query.version)
        let sample = query.sample ?? 10
        guard (0...Self.maximumSample).contains(sample) else {
            throw Problem.invalidField("sample", "must be 0 to \(Self.maximumSample)")
        }
        guard let saved = try await segments.segment(appID: app.id, name: name, version: version) else {
            throw Self.unknownSegment()
        }
        return try await response(saved, app: app, sample: sample)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> SegmentListResponse {
        let app = try await self.app(context)
        try RequestDecoding.noQuery(request)
        return SegmentListResponse(
            segments: try await segments.segments(appID: app.id).map { SegmentResponse($0, count: nil, sample: nil) })
    }

    @Sendable func archive(request: Request, context: HeraldRequestContext) async throws -> Response {
        let app = try await self.app(context)
        let name = try Self.name(context)
        let actor = try context.requirePrincipal().keyPrefix
        guard try await segments.archive(appID: app.id, name: name, actor: actor) else { throw Self.unknownSegment() }
        return Response(status: .noContent)
    }

    /// A segment's count and sample before it is saved (the builder's live count).
    @Sendable func evaluate(request: Request, context: HeraldRequestContext) async throws -> SegmentCountResponse {
        let app = try await self.app(context)
        let body = try await RequestDecoding.body(EvaluateBody.self, of: request, context: context)
        let segment = try Segment(json: body.segment)
        let sample = body.sample ?? 10
        guard (0...Self.maximumSample).contains(sample) else {
            throw Problem.invalidField("sample", "must be 0 to \(Self.maximumSample)")
        }
        let (count, devices) = try await segments.evaluate(appID: app.id, segment: segment, sample: sample, now: Date())
        return SegmentCountResponse(count: count, sample: devices.map(SampleDevice.init))
    }

    // MARK: Helpers

    private func response(_ saved: SavedSegment, app: App, sample: Int) async throws -> SegmentResponse {
        let (count, devices) = try await segments.evaluate(appID: app.id, segment: saved.segment, sample: sample, now: Date())
        return SegmentResponse(saved, count: count, sample: sample > 0 ? devices.map(SampleDevice.init) : nil)
    }

    private func app(_ context: HeraldRequestContext) async throws -> App {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let bundleID = try context.parameters.require("bundleID")
        try principal.requireScope(bundleID: bundleID)
        return try await directory.require(bundleID: bundleID)
    }

    static func name(_ context: HeraldRequestContext) throws -> String {
        let raw = try context.parameters.require("name")
        let name = raw.removingPercentEncoding ?? raw
        if let problem = SavedSegment.nameProblem(name) { throw Problem.invalidField("name", problem) }
        return name
    }

    static func checked(description text: String?) throws -> String? {
        guard let text else { return nil }
        guard TextRules.storedLength(text) <= SavedSegment.maximumDescriptionLength else {
            throw Problem.invalidField("description", "at most \(SavedSegment.maximumDescriptionLength) characters")
        }
        return text
    }

    static func unknownSegment() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-segment", title: "Unknown segment",
            detail: "this app has no segment of this name (or version)", field: "name")
    }
}

struct SegmentResponse: ResponseEncodable {
    var name: String
    var description: String?
    var version: Int
    var segment: Segment
    var createdBy: String
    var createdAt: Date
    var updatedAt: Date
    /// The app's valid devices it matches now.
    var count: Int?
    var sample: [SampleDevice]?

    init(_ saved: SavedSegment, count: Int?, sample: [SampleDevice]?) {
        name = saved.name
        description = saved.description
        version = saved.version
        segment = saved.segment
        createdBy = saved.createdBy
        createdAt = saved.createdAt
        updatedAt = saved.updatedAt
        self.count = count
        self.sample = sample
    }
}

struct SegmentListResponse: ResponseEncodable {
    var segments: [SegmentResponse]
}

struct SegmentCountResponse: ResponseEncodable {
    var count: Int
    var sample: [SampleDevice]
}

/// A matching device as a sample shows it: never its whole token.
struct SampleDevice: Codable, Sendable {
    var tokenSuffix: String
    var environment: String
    var languages: [String]
    var timeZone: String?
    var registeredAt: Date

    init(_ device: Device) {
        tokenSuffix = String(device.token.hex.suffix(8))
        environment = device.environment.rawValue
        languages = device.languages.map(\.value)
        timeZone = device.timeZone
        registeredAt = device.registeredAt
    }
}

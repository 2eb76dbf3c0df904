import APNSCore
import Foundation
import HeraldCore

extension CampaignBody {
    /// A new draft: the body names its app by bundle ID (`app`); `resolveApp` finds it.
    static func draft(_ value: PayloadValue, resolveApp: (String) async throws -> App) async throws -> CampaignDraft {
        let body = try RequestDecoding.decode(CampaignBody.self, from: value)
        guard let bundleID = body.app else { throw Problem.invalidField("app", "is required") }
        return try body.draft(app: try await resolveApp(bundleID))
    }
}

/// A campaign file (`herald campaigns create --file`): the body `POST /v1/campaigns` takes,
/// read by the same rules.
public enum CampaignFile {
    /// The draft the file describes, or the first problem as `field: reason`.
    public static func draft(json bytes: [UInt8], resolveApp: @escaping (String) async throws -> App?) async throws -> CampaignDraft {
        try await CampaignFileError.readingAsync {
            let value = try JSONFields.parse(bytes)
            guard value.isObject else { throw Problem.invalidRequest("the file must hold a JSON object: a campaign") }
            return try await CampaignBody.draft(value) { bundleID in
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
    static func readingAsync<Value>(_ body: () async throws -> Value) async throws -> Value {
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
        if let error = error as? any DomainError {
            let refusal = error.refusal
            return CampaignFileError(description: refusal.field.map { "\($0): \(refusal.detail)" } ?? refusal.detail)
        }
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
        try await CampaignFileError.readingAsync {
            let value = try JSONFields.parse(bytes)
            guard value.isObject else { throw Problem.invalidRequest("the file must hold a JSON object: a series") }
            let body = try RequestDecoding.decode(SeriesInput.Body.self, from: value)
            guard let app = try await resolveApp(body.app) else {
                throw Problem.invalidField("app", "no app has the bundle ID \(body.app)")
            }
            if let problem = CampaignSeries.nameProblem(body.name) { throw Problem.invalidField("name", problem) }
            return (
                body.name, try await SeriesInput.blueprint(body.campaign, app: app, name: body.name),
                try SeriesInput.schedule(body.schedule, now: now)
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

import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/series`: recurring campaigns (docs/campaigns.md "Recurring campaigns"): create, list,
/// show with their runs, pause, resume and stop. Marketing and admin keys only.
struct SeriesController {
    static let maximumRuns = 200

    let directory: AppDirectory
    let series: any CampaignSeriesRepository

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: show)
        for event in CampaignSeries.Event.allCases {
            group.post(":id/\(event.rawValue)") { _, context in try await transition(event, context: context) }
        }
    }

    @Sendable func create(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<SeriesResponse> {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let body = try await RequestDecoding.body(SeriesInput.Body.self, of: request, context: context)
        let app = try await directory.require(bundleID: body.app, field: "app")
        try principal.requireScope(bundleID: app.bundleID)
        let name = body.name
        if let problem = CampaignSeries.nameProblem(name) { throw Problem.invalidField("name", problem) }
        let now = Date()
        let blueprint = try await SeriesInput.blueprint(body.campaign, app: app, name: name)
        let recurrence = try SeriesInput.schedule(body.schedule, now: now)
        let made = try await series.create(
            name: name, blueprint: blueprint, recurrence: recurrence, actor: principal.keyPrefix, now: now)
        return EditedResponse(status: .created, response: SeriesResponse(made, bundleID: app.bundleID, runs: []))
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> SeriesListResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        var appIDs: [Int64]?
        if let scope = principal.appScope {
            var ids = [Int64]()
            for bundleID in scope.sorted() { ids.append(try await directory.require(bundleID: bundleID).id) }
            appIDs = ids
        }
        if let bundleID = try RequestDecoding.query(AppQuery.self, of: request).app {
            try principal.requireScope(bundleID: bundleID)
            appIDs = [try await directory.require(bundleID: bundleID, field: "app").id]
        }
        var shown = [SeriesResponse]()
        for item in try await series.list(appIDs: appIDs, limit: 200) {
            guard let app = try await directory.app(id: item.appID) else { continue }
            shown.append(SeriesResponse(item, bundleID: app.bundleID, runs: nil))
        }
        return SeriesListResponse(series: shown)
    }

    @Sendable func show(request: Request, context: HeraldRequestContext) async throws -> SeriesResponse {
        try context.requirePrincipal().requireCampaignAccess()
        let (found, bundleID) = try await self.found(context)
        return SeriesResponse(found, bundleID: bundleID, runs: try await series.runs(seriesID: found.id, limit: Self.maximumRuns))
    }

    private func transition(_ event: CampaignSeries.Event, context: HeraldRequestContext) async throws -> SeriesResponse {
        let principal = try context.requirePrincipal()
        try principal.requireCampaignAccess()
        let (found, bundleID) = try await self.found(context)
        guard
            let changed = try await series.transition(
                publicID: found.publicID, event: event, actor: principal.keyPrefix, now: Date())
        else { throw Self.unknownSeries() }
        return SeriesResponse(
            changed, bundleID: bundleID, runs: try await series.runs(seriesID: found.id, limit: Self.maximumRuns))
    }

    /// The series in the path, within the key's apps.
    private func found(_ context: HeraldRequestContext) async throws -> (CampaignSeries, String) {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text), let found = try await series.get(publicID: id),
            let app = try await directory.app(id: found.appID)
        else { throw Self.unknownSeries() }
        try context.requirePrincipal().requireScope(bundleID: app.bundleID)
        return (found, app.bundleID)
    }

    static func unknownSeries() -> Problem {
        Problem(status: .notFound, slug: "unknown-series", title: "No such series", detail: "no recurring campaign has this ID")
    }
}

/// A series as the API shows it.
struct SeriesResponse: ResponseEncodable {
    var id: String
    var app: String
    var name: String
    var state: String
    var schedule: ScheduleResponse
    var campaign: CampaignFields
    var nextRun: NextRunResponse?
    var runsStarted: Int
    var createdAt: Date
    var updatedAt: Date
    /// Newest first; only on a single series.
    var runs: [RunResponse]?

    init(_ series: CampaignSeries, bundleID: String, runs: [SeriesRun]?) {
        id = series.publicID.canonicalString
        app = bundleID
        name = series.name
        state = series.state.rawValue
        schedule = ScheduleResponse(series.recurrence)
        campaign = .seriesTemplate(series.blueprint)
        nextRun = series.next.map { NextRunResponse(date: $0.date, dueAt: $0.due) }
        runsStarted = series.runsStarted
        createdAt = series.createdAt
        updatedAt = series.updatedAt
        self.runs = runs?.map(RunResponse.init)
    }

    struct NextRunResponse: Encodable {
        var date: String
        var dueAt: Date
    }

    struct RunResponse: Encodable {
        var run: Int
        var date: String
        var dueAt: Date
        var outcome: String
        /// The run's campaign, when it started.
        var campaign: String?
        var reason: String?
        var recordedAt: Date

        init(_ run: SeriesRun) {
            self.run = run.run
            date = run.date
            dueAt = run.due
            outcome = run.outcome.rawValue
            campaign = run.campaignID?.canonicalString
            reason = run.reason
            recordedAt = run.recordedAt
        }
    }
}

struct ScheduleResponse: Encodable {
    var frequency: String
    var time: String
    var days: [String]?
    var dayOfMonth: Int?
    var timeZone: String?
    var deviceLocalTime: Bool
    var startsOn: String
    var endsOn: String?
    var runs: Int?

    init(_ recurrence: Recurrence) {
        frequency = recurrence.frequency.rawValue
        time = recurrence.time
        days = recurrence.days?.map(\.rawValue)
        dayOfMonth = recurrence.dayOfMonth
        timeZone = recurrence.timeZone
        deviceLocalTime = recurrence.deviceLocalTime
        startsOn = recurrence.startsOn
        endsOn = recurrence.endsOn
        runs = recurrence.runs
    }
}

struct SeriesListResponse: ResponseEncodable {
    var series: [SeriesResponse]
}

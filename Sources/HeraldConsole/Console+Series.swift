import APNSCore
import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Recurring campaigns, newest first, with their schedule and next run
    /// (docs/campaigns.md "Recurring campaigns").
    func seriesListPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try seriesRepository()
        let apps = try await dependencies.apps.list()
        let series = try await repository.list(appIDs: nil, limit: 200)
        let body = SeriesView.renderList(SeriesView.ListModel(series: series, apps: apps))
        return ConsolePage.render(title: "Recurring campaigns", session: session, section: .series, body: body)
    }

    /// One series: what each run sends, its schedule, every run's outcome, and pause, resume, stop.
    func seriesPage(_ request: Request, id: String, notice: HTML? = nil) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try seriesRepository()
        guard let publicID = UUID(uuidString: id), let series = try await repository.get(publicID: publicID) else {
            throw ConsoleError.notFound("No such recurring campaign.")
        }
        let bundleID = try await dependencies.apps.find(id: series.appID)?.bundleID ?? "–"
        let runs = try await repository.runs(seriesID: series.id, limit: 200)
        let model = SeriesView.Model(
            series: series, bundleID: bundleID, runs: runs, notice: notice, canSteer: session.user.role >= .marketing,
            audience: CampaignDetailView.audienceText(series.blueprint.audience))
        let body = SeriesView.render(model, session: session)
        return ConsolePage.render(title: series.name, session: session, section: .series, body: body)
    }

    func seriesTransition(_ request: Request, id: String, event: CampaignSeries.Event) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let repository = try seriesRepository()
        guard let publicID = UUID(uuidString: id) else { throw ConsoleError.notFound("No such recurring campaign.") }
        do {
            guard try await repository.transition(publicID: publicID, event: event, actor: session.user.actor, now: Date()) != nil
            else { throw ConsoleError.notFound("No such recurring campaign.") }
        } catch let error as SeriesError {
            return try await seriesPage(request, id: id, notice: "<p class=\"error\">\(error.description)</p>")
        }
        return Response.redirect(to: "/console/series/\(publicID)" as ConsolePath, type: .found)
    }

    private func seriesRepository() throws -> any CampaignSeriesRepository {
        guard let repository = dependencies.series else { throw ConsoleError.notFound("No such page.") }
        return repository
    }
}

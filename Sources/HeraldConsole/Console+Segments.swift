import APNSCore
import Foundation
import HeraldCore
import Hummingbird
import NIOCore

extension Console {
    /// An app's saved segments, and a builder for a new one with its live count and a sample
    /// (docs/segments.md).
    func segmentsPage(_ request: Request, values: FormData = FormData(), problem: String? = nil) async throws -> Response {
        let session = try await auth.require(request, role: .viewer)
        let repository = try segmentRepository()
        let apps = try await dependencies.apps.list()
        let query = try FormData(query: request.uri.query)
        let bundleID = values["app"] ?? query["app"] ?? apps.first?.bundleID ?? ""
        var segments: [SavedSegment] = []
        if let app = apps.first(where: { $0.bundleID == bundleID }) { segments = try await repository.segments(appID: app.id) }
        let model = SegmentsView.ListModel(
            apps: apps, bundleID: bundleID, segments: segments, values: values, problem: problem, canEdit: session.user.role >= .marketing)
        let body = SegmentsView.renderList(model, session: session)
        return ConsolePage.render(title: "Segments", session: session, section: .segments, body: body)
    }

    /// One segment: its conditions, how many devices match now, a sample, and (for marketing)
    /// a new version or archiving.
    func segmentPage(
        _ request: Request, bundleID: String, name: String, problem: String? = nil, values: FormData? = nil
    )
        async throws -> Response
    {
        let session = try await auth.require(request, role: .viewer)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            let saved = try await repository.segment(appID: app.id, name: name, version: nil)
        else { throw ConsoleError.notFound("No such segment.") }
        let (count, sample) = try await repository.evaluate(appID: app.id, segment: saved.segment, sample: 10, now: Date())
        let model = SegmentsView.Model(
            app: app, saved: saved, count: count, sample: sample, values: values, problem: problem, canEdit: session.user.role >= .marketing)
        let body = SegmentsView.render(model, session: session)
        return ConsolePage.render(title: saved.name, session: session, section: .segments, body: body)
    }

    /// Saves a new segment.
    func segmentCreate(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: form["app"] ?? "") else {
            return try await segmentsPage(request, values: form, problem: "Choose an app.")
        }
        let name = form.raw("name")
        if let problem = SavedSegment.nameProblem(name) { return try await segmentsPage(request, values: form, problem: "name: \(problem)") }
        let segment: Segment
        do {
            segment = try Self.parseSegment(form.raw("segment"))
        } catch let error as ValidationError {
            return try await segmentsPage(request, values: form, problem: "\(error.field): \(error.reason)")
        }
        switch try await repository.create(
            appID: app.id, name: name, description: form["description"], segment: segment, actor: session.user.actor)
        {
        case .saved(let saved):
            return Response.redirect(to: "/console/segments/\(app.bundleID)/\(saved.name)" as ConsolePath, type: .found)
        case .nameTaken:
            return try await segmentsPage(request, values: form, problem: "name: this app already has a segment named \(name)")
        case .unknown:
            throw ConsoleError.notFound("No such segment.")
        }
    }

    /// Saves the next version of a segment (and its description).
    func segmentUpdate(_ request: Request, bundleID: String, name: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID) else { throw ConsoleError.notFound("No such segment.") }
        let segment: Segment
        do {
            segment = try Self.parseSegment(form.raw("segment"))
        } catch let error as ValidationError {
            return try await segmentPage(request, bundleID: bundleID, name: name, problem: "\(error.field): \(error.reason)", values: form)
        }
        guard
            case .saved = try await repository.update(
                appID: app.id, name: name, segment: segment, description: .some(form["description"]), actor: session.user.actor)
        else { throw ConsoleError.notFound("No such segment.") }
        return Response.redirect(to: "/console/segments/\(bundleID)/\(name)" as ConsolePath, type: .found)
    }

    func segmentArchive(_ request: Request, bundleID: String, name: String) async throws -> Response {
        let (session, _) = try await auth.requireForm(request, role: .marketing)
        let repository = try segmentRepository()
        guard let app = try await dependencies.apps.find(bundleID: bundleID),
            try await repository.archive(appID: app.id, name: name, actor: session.user.actor)
        else { throw ConsoleError.notFound("No such segment.") }
        return Response.redirect(to: "/console/segments?app=\(query: bundleID)" as ConsolePath, type: .found)
    }

    /// The builder's live count: JSON `{"count", "sample"}` or `{"problem"}`.
    func segmentEvaluate(_ request: Request) async throws -> Response {
        let (_, form) = try await auth.requireScript(request, role: .viewer)
        let repository = try segmentRepository()
        var answer: [String: PayloadValue]
        if let app = try await dependencies.apps.find(bundleID: form["app"] ?? "") {
            do {
                let segment = try Self.parseSegment(form.raw("segment"))
                let (count, sample) = try await repository.evaluate(appID: app.id, segment: segment, sample: 5, now: Date())
                answer = [
                    "count": .int(count), "text": .string(ConsoleFormat.count(count)),
                    "sample": .string(SegmentsView.sampleTable(sample).text),
                ]
            } catch let error as ValidationError {
                answer = ["problem": .string("\(error.field): \(error.reason)")]
            }
        } else {
            answer = ["problem": .string("Choose an app.")]
        }
        var headers = ConsolePage.headers(contentType: "application/json")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleFormat.json(.object(answer)))))
    }

    /// The app and segment name of a page's path, percent-decoded.
    static func segmentPath(_ parameters: Parameters) throws -> (String, String) {
        let app = try parameters.require("app")
        let name = try parameters.require("name")
        return (app.removingPercentEncoding ?? app, name.removingPercentEncoding ?? name)
    }

    static func parseSegment(_ text: String) throws -> Segment {
        guard let value = try? JSONReader.parse(text.utf8) else {
            throw ValidationError(field: "segment", reason: "must be JSON, e.g. {\"language\": \"de\"}")
        }
        return try Segment(json: value)
    }

    private func segmentRepository() throws -> any SegmentRepository {
        guard let repository = dependencies.segments else { throw ConsoleError.notFound("No such segment.") }
        return repository
    }
}

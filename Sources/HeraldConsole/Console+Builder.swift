import APNSCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldTemplates
import Hummingbird

extension Console {
    func builderPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .marketing)
        var form = FormData()
        if let app = try FormData(query: request.uri.query)["app"] { form.set("app", app) }
        return try await builder(CampaignForm(form), session: session, preview: nil)
    }

    /// The builder's buttons: `preview` shows the payloads and keeps editing, `save` stores a
    /// draft, `schedule` stores it and schedules it at once.
    func builderSubmit(_ request: Request) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        var campaignForm = CampaignForm(form)
        let apps = try await dependencies.apps.list()
        let draft = campaignForm.draft { bundleID in apps.first { $0.bundleID == bundleID }?.id }
        let intent = form["intent"] ?? "save"
        if intent == "preview" {
            return try await builder(campaignForm, session: session, preview: try await preview(campaignForm))
        }
        guard let draft else { return try await builder(campaignForm, session: session, preview: nil, status: .unprocessableContent) }
        let campaign: Campaign
        do {
            campaign = try await dependencies.campaigns.create(draft, actor: session.user.actor)
        } catch let error as ValidationError {
            campaignForm.fail(error.field, error.reason)
            return try await builder(campaignForm, session: session, preview: nil, status: .unprocessableContent)
        }
        return try await afterSaving(campaign, intent: intent, session: session)
    }

    /// The builder's live count of matching devices, as a fragment for its script.
    func estimate(_ request: Request) async throws -> Response {
        let (_, form) = try await auth.requireScript(request, role: .marketing)
        var campaignForm = CampaignForm(form)
        let audience = campaignForm.audience()
        guard let bundleID = form["app"], let app = try await dependencies.apps.find(bundleID: bundleID) else {
            return ConsolePage.response("<span class=\"muted\">Choose an app to see how many devices match.</span>")
        }
        let problems =
            campaignForm.errors.map { ValidationError(field: $0.field, reason: $0.reason) }
            + audience.validate().map { ValidationError(field: "audience.\($0.field)", reason: $0.reason) }
        if let first = problems.first {
            return ConsolePage.response("<span class=\"error\">\(first.field): \(first.reason)</span>")
        }
        // A live figure must come back while the person types: a sample when counting is slow.
        let estimate: AudienceEstimate
        do {
            estimate = try await dependencies.campaigns.estimateQuickly(appID: app.id, filter: audience, budget: 0.03)
        } catch let error as ValidationError {
            // A saved segment the app does not have.
            return ConsolePage.response("<span class=\"error\">\(error.field): \(error.reason)</span>")
        }
        let overCap =
            app.frequencyCaps.isEmpty
            ? 0 : try await dependencies.campaigns.estimateOverCap(appID: app.id, filter: audience, caps: app.frequencyCaps)
        let count = ConsoleFormat.count(estimate.devices)
        return ConsolePage.response(
            """
            \(estimate.exact ? "" : "About ")<b id="estimate-count">\(count)</b> devices match now\(overCap > 0 ? ", \(ConsoleFormat.count(overCap)) of them over the app's frequency caps" : "")\(estimate.exact ? "." : " (from a sample; the campaign counts exactly when it starts).")
            """)
    }

    /// A draft's builder, filled from the stored campaign.
    func editPage(_ request: Request, id: String) async throws -> Response {
        let session = try await auth.require(request, role: .marketing)
        let campaign = try await editableDraft(id)
        let bundleID = try await dependencies.apps.find(id: campaign.appID)?.bundleID ?? ""
        return try await builder(
            CampaignForm(CampaignForm.values(of: campaign, bundleID: bundleID)), session: session, preview: nil, editing: campaign)
    }

    /// Saves the draft with every field as the form has it (what the form cannot show is
    /// kept), or previews it, or saves and schedules it.
    func editSubmit(_ request: Request, id: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .marketing)
        let campaign = try await editableDraft(id)
        var campaignForm = CampaignForm(form)
        let draft = campaignForm.draft { _ in campaign.appID }
        let intent = form["intent"] ?? "save"
        if intent == "preview" {
            return try await builder(campaignForm, session: session, preview: try await preview(campaignForm), editing: campaign)
        }
        guard let draft else {
            return try await builder(campaignForm, session: session, preview: nil, editing: campaign, status: .unprocessableContent)
        }
        let patch = CampaignForm.patch(replacingWith: CampaignForm.keepingHiddenSettings(of: campaign, in: draft))
        do {
            _ = try await dependencies.campaigns.updateDraft(id: campaign.id, patch: patch, actor: session.user.actor)
        } catch let error as ValidationError {
            campaignForm.fail(error.field, error.reason)
            return try await builder(campaignForm, session: session, preview: nil, editing: campaign, status: .unprocessableContent)
        } catch let error as CampaignError {
            throw ConsoleError(status: .conflict, title: "Not a draft any more", message: error.description)
        }
        return try await afterSaving(campaign, intent: intent, session: session)
    }

    private func editableDraft(_ id: String) async throws -> Campaign {
        let campaign = try await campaign(id)
        guard campaign.state == .draft else {
            throw ConsoleError(
                status: .conflict, title: "Not a draft",
                message: "Only drafts can be edited; this campaign is \(campaign.state.rawValue).")
        }
        return campaign
    }

    /// To the campaign's page, scheduling it first when asked.
    func afterSaving(_ campaign: Campaign, intent: String, session: ConsoleSession) async throws -> Response {
        let path: ConsolePath = "/console/campaigns/\(campaign.publicID)"
        if intent == "schedule" {
            do {
                _ = try await dependencies.campaigns.transition(id: campaign.id, event: .schedule, actor: session.user.actor)
            } catch let error as ValidationError {
                throw ConsoleError(
                    status: .unprocessableContent, title: "Saved as a draft, not scheduled",
                    message: "\(error.field): \(error.reason). The draft is at \(path).")
            }
        }
        return Response.redirect(to: path, type: .normal)
    }

    func builder(
        _ form: CampaignForm, session: ConsoleSession, preview: HTML?, editing: Campaign? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let apps = try await dependencies.apps.list()
        let templates = try await dependencies.templates.list()
        let action: ConsolePath = editing.map { "/console/campaigns/\($0.publicID)/edit" } ?? "/console/campaigns/new"
        let view = BuilderView(form: form, apps: apps, templates: templates, session: session, action: action, editing: editing != nil)
        let title = editing.map { "Edit \($0.name)" } ?? "New campaign"
        let body = view.renderPage(title: title, preview: preview)
        return ConsolePage.render(title: title, session: session, section: .campaigns, body: body, status: status)
    }

    /// The builder's preview: what each message sends, as every device of its variant gets it
    /// (the variant's template, variables and push options over the campaign's), or the
    /// campaign's one message, for the languages asked (or the audience's, or the template's).
    func preview(_ form: CampaignForm) async throws -> HTML {
        guard let name = form.form["templateName"] else { return "<p class=\"error\">Choose a template to preview.</p>" }
        var scratch = form
        let attributes = scratch.object("previewAttributes")
        if let problem = scratch.error("previewAttributes") { return "<p class=\"error\">Sample attributes \(problem).</p>" }
        let variables = scratch.object("variables") ?? [:]
        let options = scratch.pushOptions(prefix: "pushOptions")
        let variants = scratch.variants()
        let messages = (variants.isEmpty ? [CampaignVariant(name: CampaignVariant.defaultName)] : variants).map {
            $0.message(templateName: name, templateVersion: nil, variables: variables, pushOptions: options)
        }
        var sections = [HTML]()
        for (index, message) in messages.enumerated() {
            let variant = variants.isEmpty ? nil : "\(message.name) (weight \(variants[index].weight))"
            guard let record = try await dependencies.templates.latest(name: message.templateName) else {
                sections.append("<p class=\"error\">\(variant.map { "Variant \($0): " } ?? "")No template \(message.templateName).</p>")
                continue
            }
            let asked = form.list("previewLanguages") ?? form.list("audience.languages") ?? Array(record.languages.prefix(3))
            let rendered = try PayloadPreview(
                record: record, variables: message.variables, pushOptions: message.pushOptions,
                localization: form.form["localization"] == "client" ? .client : .server, attributes: attributes ?? [:]
            ).render(languages: asked, variant: variant)
            sections.append(
                variants.isEmpty ? rendered : "<section class=\"variant-preview\" data-variant=\"\(message.name)\">\(rendered)</section>")
        }
        return "<div id=\"preview\">\(sections.html { $0 })</div>"
    }
}

import APNSCore
import HeraldCore

/// The campaign builder's form, filled with what was typed and each error beside its input.
struct BuilderView {
    let form: CampaignForm
    let apps: [App]
    let templates: [TemplateSummary]
    let session: ConsoleSession
    /// Where the form posts: the new campaign's path, or the draft's edit path.
    var action: ConsolePath = "/console/campaigns/new"
    /// Editing a draft: its app cannot change.
    var editing = false

    var values: FormData { form.form }

    /// The whole page: its title, what to fix first, and the builder.
    func renderPage(title: String, preview: HTML?) -> HTML {
        let errors = form.errors
        return """
            <p class="muted"><a href="/console/campaigns">Campaigns</a> ›</p>
            <h1>\(title)</h1>
            \(errors.isEmpty ? .empty : "<div class=\"notice bad\" role=\"alert\" id=\"form-errors\"><b>Fix \(errors.count == 1 ? "this" : "these") first:</b> \(errors.map { "\($0.field): \($0.reason)" }.joined(separator: "; "))</div>" as HTML)
            \(render(preview: preview))
            """
    }

    func render(preview: HTML?) -> HTML {
        let schedule = values["schedule"] ?? "now"
        return """
            <form method="post" action="\(action)" id="builder" data-estimate-url="/console/campaigns/estimate" novalidate>
            \(ConsolePage.csrfField(session))
            <fieldset><legend>Message</legend>
            \(editing
                ? field("app", "App", "<input type=\"text\" id=\"f-app\" name=\"app\" value=\"\(values.raw("app"))\" readonly>", hint: "A draft keeps its app.")
                : field("app", "App", select("app", [("", "Choose an app")] + apps.map { ($0.bundleID, $0.bundleID) })))
            \(field("name", "Name", text("name", placeholder: "Spring sale")))
            \(field("templateName", "Template", select("templateName", [("", "Choose a template")] + templates.map { ($0.name, "\($0.name) (v\($0.latestVersion): \($0.languages.joined(separator: ", ")))") }),
                hint: "Scheduling pins the template's latest version."))
            \(field("localization", "Localization", radios("localization", [("server", "Server-side text in each device's best language"), ("client", "loc-key / loc-args, localized by the app")], default: "server")))
            \(field("variables", "Variables", textarea("variables", placeholder: "{\"discount\": 20}"), hint: "A JSON object; templates read them as vars.NAME."))
            \(field("notes", "Notes", textarea("notes", placeholder: "")))
            </fieldset>
            <fieldset><legend>Audience</legend>
            <p id="estimate" class="notice" aria-live="polite">Choose an app to see how many devices match.</p>
            \(field("audience.savedSegment", "Saved segment", text("audience.savedSegment", placeholder: "Lapsed big carts"), hint: "A segment saved for the app (Segments page); scheduling pins its latest version. Empty: none."))
            \(field("audience.languages", "Languages", text("audience.languages", placeholder: "en, de, pt-BR"), hint: "The device's first preferred language; pt matches pt-BR and pt-PT. Empty: every language."))
            \(field("audience.timeZones", "Time zones", text("audience.timeZones", placeholder: "Europe/Paris, America/New_York")))
            \(field("audience.userIDs", "User IDs", text("audience.userIDs", placeholder: "")))
            \(field("audience.environment", "Environment", select("audience.environment", [("", "Both"), ("production", "production"), ("sandbox", "sandbox")])))
            <div class="grid2">
            \(field("audience.authorization.allowsAlerts", "Shows alerts", select("audience.authorization.allowsAlerts", Self.anyYesNo)))
            \(field("audience.authorization.badge", "Allows badges", select("audience.authorization.badge", Self.anyYesNo)))
            \(field("audience.authorization.sound", "Allows sounds", select("audience.authorization.sound", Self.anyYesNo)))
            </div><div class="grid2">
            \(field("audience.registeredSince", "Registered since (UTC)", input("audience.registeredSince", type: "datetime-local")))
            \(field("audience.registeredBefore", "Registered before (UTC)", input("audience.registeredBefore", type: "datetime-local")))
            </div>
            \(field("audience.attributes", "Attributes", textarea("audience.attributes", placeholder: "{\"plan\": \"pro\", \"country\": {\"in\": [\"DE\", \"AT\"]}}"), hint: "A JSON object: each attribute equals a value, or one of a list."))
            </fieldset>
            <fieldset><legend>Push options</legend><div class="grid2">
            \(field("pushOptions.pushType", "Push type", select("pushOptions.pushType", [("", "from the template"), ("alert", "alert"), ("background", "background")])))
            \(field("pushOptions.priority", "Priority", select("pushOptions.priority", [("", "APNs default"), ("10", "10, now"), ("5", "5, power-aware"), ("1", "1, lowest")])))
            \(field("pushOptions.interruptionLevel", "Interruption level", select("pushOptions.interruptionLevel", [("", "from the template")] + Payload.InterruptionLevel.allCases.map { ($0.rawValue, $0.rawValue) })))
            \(field("pushOptions.timeToLive", "Time to live (seconds)", input("pushOptions.timeToLive", type: "number")))
            \(field("pushOptions.collapseID", "Collapse ID", text("pushOptions.collapseID", placeholder: "the campaign's ID")))
            \(field("pushOptions.threadID", "Thread ID", text("pushOptions.threadID", placeholder: "")))
            \(field("pushOptions.category", "Category", text("pushOptions.category", placeholder: "")))
            \(field("pushOptions.relevanceScore", "Relevance score", text("pushOptions.relevanceScore", placeholder: "0 to 1")))
            </div>
            \(field("pushOptions.custom", "Custom data", textarea("pushOptions.custom", placeholder: "{\"deepLink\": \"app://sale\"}"), hint: "JSON keys beside aps."))
            </fieldset>
            <fieldset><legend>Schedule</legend>
            \(field("schedule", "Send", radios("schedule", [("now", "As soon as it is scheduled"), ("at", "At a time"), ("local", "At a local time in each device's zone"), ("best", "At each device's best hour of a window")], default: "now")))
            <div data-schedule="at"\(schedule == "at" ? .empty : " hidden" as HTML)>\(field("sendAt", "Send at (UTC)", input("sendAt", type: "datetime-local")))</div>
            <div data-schedule="local"\(schedule == "local" ? .empty : " hidden" as HTML)><div class="grid2">
            \(field("delivery.date", "Date", input("delivery.date", type: "date")))
            \(field("delivery.time", "Time of day", input("delivery.time", type: "time")))
            \(field("delivery.latePolicy", "Zones already past that time", select("delivery.latePolicy", [("send", "send at once"), ("skip", "skip")])))
            </div></div>
            <div data-schedule="best"\(schedule == "best" ? .empty : " hidden" as HTML)><div class="grid2">
            \(field("bestTime.date", "Date", input("bestTime.date", type: "date")))
            \(field("bestTime.time", "Window starts at", input("bestTime.time", type: "time"), hint: "In each device's zone; default 00:00."))
            \(field("bestTime.windowHours", "Window (hours)", input("bestTime.windowHours", type: "number"), hint: "1 to 24: each device gets it at the hour of the window it opens pushes most."))
            \(field("bestTime.holdoutPercent", "Fixed-time group (%)", input("bestTime.holdoutPercent", type: "number"), hint: "0 to 50 sent at the window's start, to measure the lift."))
            </div></div>
            \(field("quietHours", "The app's quiet hours", select("quietHours", [("hold", "hold until they end"), ("skip", "skip those devices"), ("ignore", "ignore")])))
            \(field("rateLimit", "Rate limit (notifications per second)", input("rateLimit", type: "number"), hint: "Empty: as fast as APNs takes them."))
            </fieldset>
            <fieldset><legend>A/B test</legend>
            <details\(hasVariants ? " open" as HTML : .empty)><summary>Variants: two to five messages, each may set its own template and variables</summary>
            <p class="hint">Leave the names empty to send one message.</p>
            <div id="variants" data-in-use="\(variantsInUse)">\((0..<CampaignForm.maximumVariants).html { variantRow($0) })</div>
            <p class="actions"><button type="button" id="add-variant" class="secondary" hidden>Add a variant</button></p></details>
            <div class="grid2">
            \(field("holdoutPercent", "Holdout (%)", input("holdoutPercent", type: "number"), hint: "0 to 50: devices that get nothing, to measure the lift."))
            \(field("attributionWindowHours", "Attribution window (hours)", input("attributionWindowHours", type: "number"), hint: "Default 24."))
            </div></fieldset>
            <fieldset><legend>Preview</legend>
            <div class="grid2">
            \(field("previewLanguages", "Languages to preview", text("previewLanguages", placeholder: "en, de"), hint: "Empty: the audience's languages, or the template's first three."))
            \(field("previewAttributes", "A sample device's attributes", text("previewAttributes", placeholder: "{\"firstName\": \"Mia\"}"), hint: "JSON, for templates that use attributes.NAME."))
            </div>
            <p class="actions"><button type="submit" name="intent" value="preview" class="secondary">Preview payloads</button></p>
            \(preview)
            </fieldset>
            <p class="actions"><button type="submit" name="intent" value="save">Save draft</button>
            <button type="submit" name="intent" value="schedule" class="secondary">Save and schedule</button></p>
            </form>
            """
    }

    /// The variant rows to show: those filled in or refused, and at least two (an A/B test
    /// has two messages or more). The script hides the rest behind "Add a variant"; without
    /// it, every row shows.
    var variantsInUse: Int {
        let used = (0..<CampaignForm.maximumVariants).filter {
            values["variants[\($0)].name"] != nil || values["variants[\($0)].templateName"] != nil
                || values["variants[\($0)].variables"] != nil || values["variants[\($0)].weight"] != nil
                || form.error("variants[\($0)]") != nil
        }
        return max(2, (used.last ?? -1) + 1)
    }

    var hasVariants: Bool {
        (0..<CampaignForm.maximumVariants).contains { values["variants[\($0)].name"] != nil || form.error("variants[\($0)]") != nil }
            || form.error("variants") != nil
    }

    static let anyYesNo = [("", "any"), ("yes", "yes"), ("no", "no")]

    func variantRow(_ index: Int) -> HTML {
        let prefix = "variants[\(index)]"
        return """
            <div class="grid2 variant" data-variant-row="\(index)">
            \(field("\(prefix).name", "Variant \(index + 1) name", text("\(prefix).name", placeholder: index == 0 ? "A" : index == 1 ? "B" : "")))
            \(field("\(prefix).weight", "Weight", input("\(prefix).weight", type: "number")))
            \(field("\(prefix).templateName", "Template", select("\(prefix).templateName", [("", "the campaign's")] + templates.map { ($0.name, $0.name) })))
            \(field("\(prefix).variables", "Variables", text("\(prefix).variables", placeholder: "{\"discount\": 30}")))
            </div>
            """
    }

    // MARK: - Inputs

    func id(_ name: String) -> String {
        "f-" + String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    func field(_ name: String, _ label: String, _ control: HTML, hint: String? = nil) -> HTML {
        let error = form.error(name)
        return """
            <div class="field\(error == nil ? "" : " invalid")" data-field="\(name)"><label for="\(id(name))">\(label)</label>\(control)
            \(hint.map { "<p class=\"hint\">\($0)</p>" as HTML })\(error.map { "<p class=\"error\" id=\"\(id(name))-error\">\($0)</p>" as HTML })</div>
            """
    }

    func input(_ name: String, type: String) -> HTML {
        "<input type=\"\(type)\" id=\"\(id(name))\" name=\"\(name)\" value=\"\(values.raw(name))\">"
    }

    func text(_ name: String, placeholder: String) -> HTML {
        "<input type=\"text\" id=\"\(id(name))\" name=\"\(name)\" value=\"\(values.raw(name))\" placeholder=\"\(placeholder)\">"
    }

    func textarea(_ name: String, placeholder: String) -> HTML {
        "<textarea id=\"\(id(name))\" name=\"\(name)\" placeholder=\"\(placeholder)\">\(values.raw(name))</textarea>"
    }

    func select(_ name: String, _ options: [(String, String)]) -> HTML {
        let chosen = values.raw(name)
        return """
            <select id="\(id(name))" name="\(name)">\(options.html { "<option value=\"\($0.0)\"\($0.0 == chosen ? " selected" as HTML : .empty)>\($0.1)</option>" })</select>
            """
    }

    func radios(_ name: String, _ options: [(String, String)], default fallback: String) -> HTML {
        let chosen = values[name] ?? fallback
        return options.enumerated().html { index, option in
            """
            <label class="check"><input type="radio" name="\(name)" value="\(option.0)"\(index == 0 ? " id=\"\(id(name))\"" as HTML : .empty)\(option.0 == chosen ? " checked" as HTML : .empty)> \(option.1)</label>
            """
        }
    }
}

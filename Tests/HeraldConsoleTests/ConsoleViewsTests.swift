import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

/// Pages as pure functions of their models: what a model holds shows as text, and the links
/// keep the filter.
@Suite struct ConsoleViewsTests {
    @Test func theSignInPageShowsTheRefusalAndKeepsTheEmailAsText() {
        let html = LoginView.render(
            LoginView.Model(next: "/console/campaigns?x=\"1\"", email: "a\"><script>@example.com", message: "Wrong <b>email</b>.", token: "t")
        )
        .description
        #expect(html.contains("a&quot;&gt;&lt;script&gt;@example.com") && !html.contains("<script>"))
        #expect(html.contains("Wrong &lt;b&gt;email&lt;/b&gt;.") && html.contains("role=\"alert\""))
        #expect(html.contains("value=\"/console/campaigns?x=&quot;1&quot;\""))
        #expect(!LoginView.render(LoginView.Model(next: "/console", email: "", message: nil, token: "t")).description.contains("role=\"alert\""))
    }

    @Test func theCampaignListPagesKeepTheFilter() {
        var filter = FormData()
        filter.set("app", "com.example.a b")
        filter.set("state", "running")
        let model = CampaignListView.Model(
            page: CampaignPage(campaigns: [], nextCursor: 42), apps: [], filter: filter, isFirstPage: false, canCreate: false)
        let html = CampaignListView.render(model).description
        #expect(html.contains("href=\"/console/campaigns?app=com.example.a%20b&amp;state=running&amp;cursor=42\" rel=\"next\""))
        #expect(html.contains("href=\"/console/campaigns?app=com.example.a%20b&amp;state=running\">First page"))
        #expect(html.contains("No campaigns match.") && !html.contains("New campaign"))
        let first = CampaignListView.render(
            CampaignListView.Model(
                page: CampaignPage(campaigns: [], nextCursor: nil), apps: [], filter: FormData(), isFirstPage: true, canCreate: true)
        ).description
        #expect(!first.contains("First page") && !first.contains("rel=\"next\"") && first.contains("New campaign"))
    }

    /// While a started campaign's audience is counted, the bar has no value (indeterminate)
    /// instead of showing what is done as the whole.
    @Test func aCampaignWhoseAudienceIsBeingCountedShowsNoPercentage() {
        var counters = CampaignCounters(audienceSize: 40, accepted: 40)
        counters.audienceCounting = true
        let counting = CampaignFigures.progress(counters).description
        #expect(counting.contains("<progress aria-label=\"progress\">") && counting.contains("counting the audience"))
        #expect(!counting.contains("100"))
        counters.audienceCounting = false
        counters.audienceSize = 80
        counters.pending = 40
        let counted = CampaignFigures.progress(counters).description
        #expect(counted.contains("max=\"80\" value=\"40\"") && !counted.contains("counting"))
    }

    /// Counters read while a Citus worker is stopped leave out its parts: the figures say so.
    @Test func partialCountersCarryANotice() {
        var counters = CampaignCounters(audienceSize: 40, accepted: 20)
        #expect(!CampaignFigures.figures(counters).description.contains("figures-partial"))
        counters.partial = true
        let partial = CampaignFigures.figures(counters).description
        #expect(partial.contains("id=\"figures-partial\"") && partial.contains("database worker is unavailable"))
        #expect(partial.contains("id=\"figure-accepted\""))
    }

    @Test func aJourneyProblemIsSaidAtItsStep() {
        #expect(
            JourneysView.describe(ValidationError(field: "steps.remind.send.template", reason: "names no template"))
                == "Step remind: send.template names no template")
        #expect(JourneysView.describe(ValidationError(field: "goal", reason: "is required")) == "goal: is required")
    }
}

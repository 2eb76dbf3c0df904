import APNSCore
import HeraldAPI
import HeraldCore
import HeraldTemplates
import Hummingbird
import Testing

/// Every domain error becomes its problem in one place (`Problem.init(_: Refusal)`, used by the
/// API's problem middleware): the status by the refusal's kind, the slug, field and detail as
/// the error gives them.
@Suite struct DomainErrorProblemTests {
    @Test func eachDomainErrorBecomesItsProblem() {
        let channel = BroadcastChannelID("dHlwZS1hLWNoYW5uZWwtaWQ=")!
        let cases: [(any DomainError, HTTPResponse.Status, String, String?)] = [
            (ValidationError(field: "languages[2]", reason: "not a BCP 47 language tag"), .unprocessableContent, "invalid-field", "languages[2]"),
            (CampaignError.invalidTransition(from: .running, event: .edit), .conflict, "invalid-transition", "state"),
            (SeriesError.invalidTransition(from: .stopped, event: .pause), .conflict, "invalid-transition", "state"),
            (CredentialStateError("the active credential cannot be retired"), .conflict, "credential-state", "state"),
            (DeviceTokenError.oddLength, .badRequest, "invalid-device-token", "token"),
            (
                ChannelManagementError(.activityHasChannel(channel), detail: "the activity has a channel"), .conflict, "activity-has-channel",
                "activityID"
            ),
            (ChannelManagementError(.activityEnded, detail: "ended"), .conflict, "activity-ended", "activityID"),
            (ChannelManagementError(.refused(status: 400, reason: "BadRequest"), detail: "refused"), .badGateway, "apns-refused", nil),
            (ChannelManagementError(.refused(status: 429, reason: "TooManyRequests"), detail: "busy"), .tooManyRequests, "apns-refused", nil),
            (ChannelManagementError(.unavailable, detail: "no answer"), .serviceUnavailable, "apns-unavailable", nil),
        ]
        for (error, status, slug, field) in cases {
            let problem = Problem(error.refusal)
            #expect(problem.status == status, "\(error)")
            #expect(problem.slug == slug, "\(error)")
            #expect(problem.field == field, "\(error)")
            #expect(!problem.detail.isEmpty && !problem.title.isEmpty)
        }
        #expect(Problem(ChannelManagementError(.unavailable, detail: "x").refusal).retryAfter == 30)
        #expect(Problem(ValidationError(field: "f", reason: "must be a string").refusal).detail == "must be a string")
    }

    @Test func aTemplatesProblemsAreListedEachWithItsField() {
        let error = TemplateLoadError(problems: [
            TemplateProblem(file: "template", field: "name", message: "must be 1 to 64 characters"),
            TemplateProblem(file: "template", field: "strings.de.TITLE", message: "has no English original"),
        ])
        let problem = Problem(error.refusal)
        #expect(problem.status == .unprocessableContent && problem.slug == "invalid-field" && problem.field == "name")
        #expect(problem.detail == "the template has 2 problems: must be 1 to 64 characters; errors lists every one")
        #expect(problem.errors?.map(\.field) == ["name", "strings.de.TITLE"])
    }
}

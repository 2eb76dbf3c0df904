import APNSCore
import Foundation
import HeraldCore
import Testing

@testable import HeraldConsole

@Suite struct CampaignFormTests {
    func form(_ text: String) throws -> CampaignForm { CampaignForm(try FormData(encoded: Substring(text))) }

    @Test func readsADraftWithAudienceOptionsAndVariants() throws {
        let nextYear = Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
        var form = try form(
            "app=com.example&name=Sale&templateName=promo&localization=client&variables=%7B%22d%22%3A20%7D"
                + "&audience.languages=en%2C+de&audience.authorization.badge=no&audience.registeredSince=2026-01-02T03%3A04"
                + "&pushOptions.priority=5&pushOptions.collapseID=sale&schedule=local&delivery.date=\(nextYear)-01-01&delivery.time=09%3A30"
                + "&variants%5B0%5D.name=A&variants%5B0%5D.weight=2&variants%5B1%5D.name=B&holdoutPercent=10&rateLimit=100")
        let parsed = form.draft { $0 == "com.example" ? 7 : nil }
        let draft = try #require(parsed, "\(form.errors)")
        #expect(draft.appID == 7)
        #expect(draft.localization == .client)
        #expect(draft.variables == ["d": .int(20)])
        #expect(draft.audience.languages == ["en", "de"])
        #expect(draft.audience.authorization?.badge == false)
        #expect(draft.audience.registeredSince == Date(timeIntervalSince1970: 1_767_323_040))
        #expect(draft.pushOptions.priority == .powerAware)
        #expect(draft.localDelivery == LocalDelivery(date: "\(nextYear)-01-01", time: "09:30"))
        #expect(draft.variants.map(\.name) == ["A", "B"])
        #expect(draft.variants.map(\.weight) == [2, 1])
        #expect(draft.holdoutBasisPoints == 1000)
        #expect(draft.rateLimit == 100)
    }

    @Test func namesEachBadFieldAsTheAPIDoes() throws {
        var form = try form(
            "app=nope&name=&templateName=Bad+Name&variables=%5B1%5D&audience.languages=en%2C%21%21&pushOptions.priority=7"
                + "&rateLimit=0&schedule=at&sendAt=2026-02-30T10%3A00")
        #expect(form.draft { _ in nil } == nil)
        #expect(form.error("app") != nil)
        #expect(form.error("variables") != nil)
        #expect(form.error("pushOptions.priority") != nil)
        #expect(form.error("sendAt") != nil)

        var typed = try self.form("app=com.example&name=&templateName=Bad+Name&audience.languages=en%2C%21%21&rateLimit=0")
        #expect(typed.draft { _ in 1 } == nil)
        #expect(typed.error("name") != nil)
        #expect(typed.error("templateName") != nil)
        #expect(typed.error("audience.languages") != nil)
        #expect(typed.error("rateLimit") != nil)
    }
}

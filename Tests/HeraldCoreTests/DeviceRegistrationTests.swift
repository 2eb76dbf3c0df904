import APNSCore
import HeraldCore
import Testing

@Suite struct DeviceRegistrationTests {
    func make(
        languages: [String] = ["en"], timeZone: String? = nil, userID: String? = nil,
        attributes: [String: PayloadValue] = [:]
    ) throws(ValidationError) -> DeviceRegistration {
        try DeviceRegistration(
            environment: .production, languages: languages, authorization: .notDetermined, timeZone: timeZone,
            userID: userID, attributes: attributes)
    }

    @Test func normalizesAndDeduplicatesLanguagesKeepingOrder() throws {
        let registration = try make(languages: ["zh_hant_hk", "en-gb", "zh-Hant-HK"])
        #expect(registration.languages.map(\.value) == ["zh-Hant-HK", "en-GB"])
    }

    @Test func namesTheBadLanguageByIndex() {
        #expect(throws: ValidationError(field: "languages[1]", reason: "not a BCP 47 language tag (e.g. en, pt-BR, zh-Hant-HK)")) {
            try make(languages: ["en", "not a tag"])
        }
    }

    @Test func allowsAtMostTenLanguages() {
        #expect(throws: ValidationError.self) { try make(languages: Array(repeating: "en", count: 11)) }
    }

    @Test func acceptsIANATimeZonesOnly() throws {
        #expect(try make(timeZone: "Europe/Paris").timeZone == "Europe/Paris")
        #expect(try make(timeZone: "UTC").timeZone == "UTC")
        for bad in ["Mars/Olympus_Mons", "CEST", "GMT+2", ""] {
            #expect(throws: ValidationError.self) { try make(timeZone: bad) }
        }
    }

    @Test func limitsAttributesToFourKilobytesOfJSON() throws {
        // {"k":"…"} is 8 bytes of punctuation and key around the value.
        let fits = try make(attributes: ["k": .string(String(repeating: "x", count: 4096 - 8))])
        #expect(fits.attributesJSON.utf8.count == 4096)
        #expect(throws: ValidationError.self) {
            try make(attributes: ["k": .string(String(repeating: "x", count: 4096 - 7))])
        }
    }

    @Test func refusesEmptyOrControlCharacterUserIDs() {
        #expect(throws: ValidationError.self) { try make(userID: "") }
        #expect(throws: ValidationError.self) { try make(userID: "a\u{0}b") }
        #expect(throws: ValidationError.self) { try make(userID: String(repeating: "u", count: 257)) }
    }

    @Test func authorizationAllowsAlertsOnlyWhenGranted() {
        #expect(AuthorizationSettings(status: .authorized, alert: true).allowsAlerts)
        #expect(AuthorizationSettings(status: .provisional, alert: true).allowsAlerts)
        #expect(!AuthorizationSettings(status: .denied, alert: true).allowsAlerts)
        #expect(!AuthorizationSettings(status: .authorized, alert: false).allowsAlerts)
    }

    @Test func pruneNeedsADate() {
        #expect(throws: ValidationError.self) {
            try PruneRequest(invalidatedBefore: nil, notRegisteredSince: nil, appID: nil, dryRun: true)
        }
    }

    @Test func apiKeysAreLongRandomAndPrefixed() {
        let a = APIKeySecret(), b = APIKeySecret()
        #expect(a.value != b.value)
        #expect(a.value.hasPrefix("hk_") && a.value.count == 67)
        #expect(a.prefix == String(a.value.prefix(11)))
    }

    @Test func newAppsValidateAppleIdentifiers() {
        #expect(throws: ValidationError.self) {
            try NewApp(bundleID: "com.example", teamID: "short", keyID: "ABCDE12345", signingKeyPEM: "", defaultEnvironment: .sandbox)
        }
        #expect(throws: ValidationError.self) {
            try NewApp(bundleID: "bad id", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: "", defaultEnvironment: .sandbox)
        }
        #expect(throws: ValidationError.self) {
            try NewApp(
                bundleID: "com.example", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: "",
                defaultEnvironment: .sandbox, apnsEndpoint: "http://insecure")
        }
    }
}

import APNSCore
import Crypto
import Foundation
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
        let a = APIKeySecret()
        let b = APIKeySecret()
        #expect(a.value != b.value)
        #expect(a.value.hasPrefix("hk_") && a.value.count == 67)
        #expect(a.prefix == String(a.value.prefix(11)))
    }

    @Test func newAppsValidateAppleIdentifiersKeysAndEndpoints() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        #expect(
            field { try NewApp(bundleID: "com.example", teamID: "short", keyID: "ABCDE12345", signingKeyPEM: pem, defaultEnvironment: .sandbox) }
                == "teamID")
        #expect(
            field { try NewApp(bundleID: "bad id", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: pem, defaultEnvironment: .sandbox) }
                == "bundleID")
        #expect(
            field { try NewApp(bundleID: "com.example", teamID: "ABCDE12345", keyID: "abcde12345", signingKeyPEM: pem, defaultEnvironment: .sandbox) }
                == "keyID")
        #expect(
            field { try NewApp(bundleID: "com.example", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: "", defaultEnvironment: .sandbox) }
                == "privateKey")
        // A P-384 key is a key, but not one APNs takes.
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect(
            field {
                try NewApp(bundleID: "com.example", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: p384, defaultEnvironment: .sandbox)
            } == "privateKey")
        #expect(
            field {
                try NewApp(
                    bundleID: "com.example", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: pem,
                    defaultEnvironment: .sandbox, apnsEndpoint: "http://insecure")
            } == "apnsEndpoint")
        let app = try NewApp(
            bundleID: "com.example", teamID: "ABCDE12345", keyID: "ABCDE12345", signingKeyPEM: pem, defaultEnvironment: .sandbox)
        #expect(app.signingKey.fingerprint.count == 16)
        #expect(app.signingKey.fingerprint == ProviderTokenSigner.publicKeyFingerprint(pemRepresentation: pem))
    }

    @Test func newKeysFollowTheirRole() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(field { try NewAPIKey(role: .app, now: now) } == "app")
        #expect(field { try NewAPIKey(role: .app, appID: 1, appScope: [1], now: now) } == "apps")
        #expect(field { try NewAPIKey(role: .admin, appScope: [1], now: now) } == "apps")
        #expect(field { try NewAPIKey(role: .marketing, appID: 1, now: now) } == "app")
        #expect(field { try NewAPIKey(role: .marketing, appScope: [], now: now) } == "apps")
        #expect(field { try NewAPIKey(role: .admin, name: "a\u{0}b", now: now) } == "name")
        #expect(field { try NewAPIKey(role: .admin, expiresAt: now, now: now) } == "expiresAt")
        #expect(field { try NewAPIKey(role: .admin, expiresAt: Date(timeIntervalSince1970: 32_503_680_000), now: now) } == "expiresAt")
        let scoped = try NewAPIKey(role: .marketing, appScope: [3, 1, 3], expiresAt: now.addingTimeInterval(60), now: now)
        #expect(scoped.appScope == [1, 3])
    }
}

/// The field a `ValidationError` names when `make` throws one; nil when it does not throw.
private func field<Value>(_ make: () throws -> Value) -> String? {
    do {
        _ = try make()
        return nil
    } catch let error as ValidationError {
        return error.field
    } catch {
        return "\(error)"
    }
}

/// Values Herald stores: text it can store and send, and nesting it can read back.
@Suite struct StoredValueRulesTests {
    static func nested(_ depth: Int, key: String = "a") -> PayloadValue {
        var value = PayloadValue.object([:])
        for _ in 1..<depth { value = .object([key: value]) }
        return value
    }

    @Test func nestingIsAllowedUpToThirtyTwoLevelsAndNamedPastThem() {
        #expect(StoredValueRules.problem(in: Self.nested(32), field: "attributes") == nil)
        let deep = StoredValueRules.problem(in: .array([.int(1), Self.nested(40)]), field: "custom")
        #expect(deep?.field == "custom[1]" + String(repeating: ".a", count: 31))
        #expect(deep?.reason.contains("32") == true)
        #expect(StoredValueRules.problem(in: Self.nested(512), field: "x") != nil)
    }

    @Test func theFirstForbiddenCharacterIsNamedInKeyOrder() {
        let value = PayloadValue.object([
            "b": .array([.string("ok"), .object(["c": .string("x\u{0}y")])]),
            "a": .object(["k\u{1B}": .int(1)]),
            "z": .string("tab\tand\nlines\r are fine"),
        ])
        let found = TextRules.firstForbidden(in: value, at: "attributes")
        #expect(found?.field == "attributes.a.k\u{1B}" && found?.scalar == "\u{1B}")
        var clean = value
        clean = .object(["b": .array([.string("ok")]), "z": .string("tab\tand\nlines\r are fine")])
        #expect(TextRules.firstForbidden(in: clean) == nil)
        #expect(TextRules.firstForbidden(in: .array([.string("ok"), .string("\u{7F}")]))?.field == "[1]")
    }

    /// Long keys nested deep: linear, not a path string per element (which made a 1 MiB body
    /// cost most of a second).
    @Test func aCleanValueWithLongNestedKeysIsCheckedWithoutBuildingPaths() {
        let key = String(repeating: "k", count: 2_000)
        let value = Self.nested(500, key: key)
        #expect(TextRules.firstForbidden(in: value) == nil)
        #expect(StoredValueRules.problem(in: value, field: "attributes")?.field.count ?? 0 > 32 * 2_000)
    }

    @Test func headerValuesAreRefusedWithControlCharacters() {
        for collapseID in ["a\r\nb", "a\nb", "\u{0}", "tab\there"] {
            let errors = PushOptions(collapseID: collapseID).validate()
            #expect(errors.map(\.field) == ["collapseID"], "\(collapseID.debugDescription)")
        }
        #expect(PushOptions(collapseID: String(repeating: "x", count: 65)).validate().map(\.field) == ["collapseID"])
        #expect(PushOptions(collapseID: "sale-2026").validate().isEmpty)
        #expect(PushOptions(threadID: "a\u{0}b").validate().map(\.field) == ["threadID"])
    }
}

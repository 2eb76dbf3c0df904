import Foundation
import Testing

@testable import HeraldTemplates

@Suite struct StringCatalogParserTests {
    private static let catalog = #"""
        {
          "sourceLanguage" : "en",
          "strings" : {
            "CART_BODY" : {
              "comment" : "Items in the cart",
              "extractionState" : "manual",
              "localizations" : {
                "de" : { "stringUnit" : { "state" : "translated", "value" : "%1$@ Artikel bei %2$@" } },
                "en" : { "stringUnit" : { "state" : "translated", "value" : "%1$@ items at %2$@" } },
                "fr" : { "stringUnit" : { "state" : "new", "value" : "" } },
                "ja" : { "stringUnit" : { "state" : "needs_review", "value" : "%2$@に%1$@点" } }
              }
            },
            "ITEMS" : {
              "localizations" : {
                "en" : {
                  "variations" : {
                    "plural" : {
                      "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld item" } },
                      "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld items" } }
                    }
                  }
                },
                "pt-BR" : {
                  "variations" : {
                    "device" : {
                      "iphone" : { "stringUnit" : { "state" : "translated", "value" : "no iPhone" } },
                      "other" : { "stringUnit" : { "state" : "translated", "value" : "no aparelho" } }
                    }
                  }
                }
              }
            },
            "Thanks for shopping with us!" : { },
            "ONLY_GERMAN" : {
              "localizations" : {
                "de" : { "stringUnit" : { "state" : "translated", "value" : "Nur Deutsch" } }
              }
            }
          },
          "version" : "1.0"
        }
        """#

    @Test func readsStringUnitsByLanguage() throws {
        let catalog = try StringCatalogParser.parse(Data(Self.catalog.utf8))
        #expect(catalog.sourceLanguage == "en")
        #expect(catalog.strings["de"]?["CART_BODY"] == "%1$@ Artikel bei %2$@")
        #expect(catalog.strings["en"]?["CART_BODY"] == "%1$@ items at %2$@")
        // A unit that still needs review but has a value is used; a new one without is not.
        #expect(catalog.strings["ja"]?["CART_BODY"] == "%2$@に%1$@点")
        #expect(catalog.strings["fr"]?["CART_BODY"] == nil)
    }

    @Test func readsPluralVariationsAsOneSubstitutionAndDeviceVariationsAsTheirOtherForm() throws {
        let catalog = try StringCatalogParser.parse(Data(Self.catalog.utf8))
        #expect(catalog.strings["en"]?["ITEMS"] == "%#@plural@")
        #expect(catalog.plurals["en"]?["ITEMS"] == ["plural": ["one": "%lld item", "other": "%lld items"]])
        #expect(catalog.strings["pt-BR"]?["ITEMS"] == "no aparelho")
    }

    @Test func usesTheKeyAsTheSourceValueWhereThereIsNone() throws {
        let catalog = try StringCatalogParser.parse(Data(Self.catalog.utf8))
        #expect(catalog.strings["en"]?["Thanks for shopping with us!"] == "Thanks for shopping with us!")
        #expect(catalog.strings["en"]?["ONLY_GERMAN"] == "ONLY_GERMAN")
        #expect(catalog.strings["de"]?["ONLY_GERMAN"] == "Nur Deutsch")
    }

    @Test func refusesMalformedJSON() {
        do {
            _ = try StringCatalogParser.parse(Data("{\n\"sourceLanguage\": \"en\",\n\"strings\": {,}\n}".utf8))
            Issue.record("a malformed catalog was accepted")
        } catch let error as StringCatalogError {
            #expect(error.message.hasPrefix("not valid JSON"))
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func namesTheFieldOfAWrongType() {
        #expect(throws: StringCatalogError(line: nil, message: "sourceLanguage must be a string")) {
            try StringCatalogParser.parse(Data(#"{"sourceLanguage": 1, "strings": {}}"#.utf8))
        }
        #expect(throws: StringCatalogError(line: nil, message: "strings is missing")) {
            try StringCatalogParser.parse(Data(#"{"sourceLanguage": "en"}"#.utf8))
        }
    }
}

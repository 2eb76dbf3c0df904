import Testing

@testable import HeraldTemplates

@Suite struct FormatStringTests {
    private func render(_ format: String, _ arguments: [String]) throws -> String {
        try FormatString(parsing: format).render(arguments: arguments)
    }

    @Test func fillsSequentialArgumentsInOrderAsIOSDoes() throws {
        // docs/apns.md "Localization": the GAME_PLAY_REQUEST_FORMAT example.
        let format = try FormatString(parsing: "%@ and %@ have invited you to play Monopoly")
        #expect(format.argumentCount == 2)
        #expect(format.usedPositions == [1, 2])
        #expect(format.render(arguments: ["Jenna", "Frank"]) == "Jenna and Frank have invited you to play Monopoly")
    }

    @Test func fillsPositionalArgumentsInAnyOrder() throws {
        let format = try FormatString(parsing: "%2$@ has invited you, %1$@")
        #expect(format.argumentCount == 2)
        #expect(format.usedPositions == [1, 2])
        #expect(format.render(arguments: ["Jenna", "Frank"]) == "Frank has invited you, Jenna")
        #expect(try render("%1$@ %1$@ %1$@", ["ha"]) == "ha ha ha")
    }

    @Test func countsSlotsUpToTheHighestPosition() throws {
        let format = try FormatString(parsing: "only %3$@")
        #expect(format.argumentCount == 3)
        #expect(format.usedPositions == [3])
        #expect(format.render(arguments: ["a", "b", "c"]) == "only c")
    }

    @Test func turnsDoublePercentIntoAPercentSign() throws {
        #expect(try render("%1$@%% off", ["30"]) == "30% off")
        #expect(try render("100%%", []) == "100%")
        #expect(try render("%%%@%%", ["x"]) == "%x%")
        #expect(try FormatString(parsing: "100%%").argumentCount == 0)
    }

    @Test(arguments: ["%d", "%i", "%u", "%ld", "%lld", "%lu", "%llu", "%1$d", "%1$lld"])
    func rendersIntegerConversionsAsText(specifier: String) throws {
        #expect(try render("\(specifier) items", ["12"]) == "12 items")
    }

    @Test func compilesToLiteralAndArgumentSegments() throws {
        let format = try FormatString(parsing: "a%@b%%c")
        #expect(format.segments == [.literal("a"), .argument(0, .object), .literal("b%c")])
        #expect(try FormatString(parsing: "").segments.isEmpty)
    }

    @Test func keepsUnicodeTextIntact() throws {
        #expect(try render("¡Hola, %@! 👋🏽 你好 %%", ["Zoë"]) == "¡Hola, Zoë! 👋🏽 你好 %")
        #expect(try render("%2$@まで全品%1$@%%オフ", ["30", "23:59"]) == "23:59まで全品30%オフ")
    }

    @Test func rendersAMissingArgumentAsEmptyText() throws {
        #expect(try render("Hi %@!", []) == "Hi !")
        #expect(try render("%1$@ and %2$@", ["a"]) == "a and ")
    }

    @Test(arguments: [
        ("%", FormatStringError(.trailingPercent)),
        ("50%", FormatStringError(.trailingPercent)),
        ("%x", FormatStringError(.unsupportedSpecifier("%x"))),
        ("%s is here", FormatStringError(.unsupportedSpecifier("%s"))),
        ("%5d", FormatStringError(.unsupportedSpecifier("%5d"))),
        ("%lx", FormatStringError(.unsupportedSpecifier("%lx"))),
        ("%llld", FormatStringError(.unsupportedSpecifier("%lll"))),
        ("%1$", FormatStringError(.unsupportedSpecifier("%1$"))),
        ("%1$s", FormatStringError(.unsupportedSpecifier("%1$s"))),
        ("50 %é", FormatStringError(.unsupportedSpecifier("%é"))),
        ("%0$@", FormatStringError(.positionZero)),
        ("%100$@", FormatStringError(.positionTooLarge(100))),
        ("%@ then %1$@", FormatStringError(.mixedSequentialAndPositional)),
        ("%1$@ then %@", FormatStringError(.mixedSequentialAndPositional)),
    ])
    func refusesWhatIOSCannotFill(format: String, expected: FormatStringError) {
        #expect(throws: expected) { try FormatString(parsing: format) }
    }

    @Test func explainsErrorsInOneLine() {
        #expect(FormatStringError(.trailingPercent).description == "lone '%' at the end of the text: write %% for a percent sign")
        #expect(FormatStringError(.unsupportedSpecifier("%x")).description.hasPrefix("unsupported format specifier \"%x\""))
        #expect(
            FormatStringError(.mixedSequentialAndPositional).description
                == "mixes sequential (%@) with positional (%n$@) specifiers: use one style per string"
        )
    }
}

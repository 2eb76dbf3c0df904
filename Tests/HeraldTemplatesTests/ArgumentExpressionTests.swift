import APNSCore
import HeraldCore
import Testing

@testable import HeraldTemplates

@Suite struct ArgumentExpressionTests {
    @Test func compilesReferencesAndFallbacks() throws {
        let expression = try ArgumentExpression(parsing: "  attributes.first_name ?? vars.name ?? user.id ?? device.language ?? \"there\" ")
        #expect(
            expression.terms == [.attribute("first_name"), .variable("name"), .userID, .deviceLanguage, .literal("there")]
        )
        #expect(expression.source == "attributes.first_name ?? vars.name ?? user.id ?? device.language ?? \"there\"")
        #expect(try ArgumentExpression(parsing: #""say \"hi\"""#).terms == [.literal("say \"hi\"")])
        #expect(try ArgumentExpression(parsing: "vars.store-name").terms == [.variable("store-name")])
    }

    @Test(arguments: [
        ("", "empty expression: expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""),
        ("vars.a ??", "expected a value after '??'"),
        ("\"x\" ?? vars.a", "a \"literal\" always has a value, so nothing may follow it"),
        ("vars.a vars.b", "expected '??' but found 'v'"),
        ("vars.a ? vars.b", "expected '??' but found '?'"),
        ("profile.name", "unknown reference \"profile.name\": expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""),
        ("user.name", "unknown reference \"user.name\": expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""),
        ("vars", "unknown reference \"vars\": expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""),
        ("vars.", "\"vars.\": a name after attributes. or vars. is one word of letters, digits, _ or -"),
        ("attributes.a.b", "\"attributes.a.b\": a name after attributes. or vars. is one word of letters, digits, _ or -"),
        ("\"open", "unterminated \"literal\""),
        ("#x", "unexpected '#': expected attributes.NAME, vars.NAME, user.id, device.language or a \"literal\""),
    ])
    func refusesMalformedExpressions(source: String, message: String) {
        #expect(throws: ArgumentExpressionError(message)) { try ArgumentExpression(parsing: source) }
    }

    @Test func evaluatesTheFirstTermWithAValue() throws {
        let expression = try ArgumentExpression(parsing: "attributes.nickname ?? attributes.firstName ?? \"there\"")
        let language = Fixtures.tag("de")
        let named = Fixtures.recipient(attributes: ["nickname": "", "firstName": "Ana"])
        #expect(expression.evaluate(for: named, variables: [:], language: language) == "Ana")
        let nameless = Fixtures.recipient(attributes: ["nickname": .null, "firstName": ["a", "b"]])
        #expect(expression.evaluate(for: nameless, variables: [:], language: language) == "there")
    }

    @Test func readsVariablesUserIDAndLanguage() throws {
        let recipient = Fixtures.recipient(userID: "u-42")
        let language = Fixtures.tag("pt-BR")
        #expect(try ArgumentExpression(parsing: "vars.store").evaluate(for: recipient, variables: ["store": "Acme"], language: language) == "Acme")
        #expect(try ArgumentExpression(parsing: "user.id").evaluate(for: recipient, variables: [:], language: language) == "u-42")
        #expect(try ArgumentExpression(parsing: "device.language").evaluate(for: recipient, variables: [:], language: language) == "pt-BR")
        #expect(try ArgumentExpression(parsing: "vars.missing").evaluate(for: recipient, variables: [:], language: language) == nil)
        let anonymous = Fixtures.recipient(userID: nil)
        #expect(try ArgumentExpression(parsing: "user.id").evaluate(for: anonymous, variables: [:], language: language) == nil)
    }

    static let texts: [(PayloadValue, String?)] = [
        (.string("text"), "text"),
        (.int(42), "42"),
        (.int(-7), "-7"),
        (.double(20.0), "20"),
        (.double(2.5), "2.5"),
        (.double(0.1), "0.1"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.string(""), nil),
        (.null, nil),
        (.array(["a"]), nil),
        (.object(["a": 1]), nil),
    ]

    @Test(arguments: texts)
    func rendersValuesAsText(value: PayloadValue, expected: String?) {
        #expect(ArgumentExpression.text(of: value) == expected)
    }
}

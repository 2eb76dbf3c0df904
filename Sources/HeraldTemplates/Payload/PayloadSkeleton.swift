import APNSCore
import HeraldCore

/// A template's payload for one language, authorization shape and set of options, encoded
/// once: the JSON bytes with holes where per-device argument text goes. Filling it escapes
/// each text into its hole, which gives the same bytes as building and encoding the payload
/// (JSON escaping does not depend on the text around it).
struct PayloadSkeleton: Sendable {
    /// Literal bytes up to the next hole, then the hole (an index into the filled values), or
    /// -1 after the last literal.
    struct Piece: Sendable {
        let literal: Range<Int>
        let argument: Int
    }

    let bytes: [UInt8]
    let pieces: [Piece]
    let language: LanguageTag
    let pushType: PushType

    /// The payload with `values` in the holes, or nil when it is over the push type's limit
    /// (the full renderer then shortens it).
    func fill(_ values: [String]) -> [UInt8]? {
        if pieces.count == 1, pieces[0].argument < 0 { return bytes }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 32 * values.count)
        for piece in pieces {
            out.append(contentsOf: bytes[piece.literal])
            if piece.argument >= 0 { JSONWriter.appendEscaped(values[piece.argument], to: &out) }
        }
        return out.count <= pushType.maximumPayloadBytes ? out : nil
    }

    /// Hole k is written as the private-use scalar U+E000+k while the skeleton is encoded.
    static let maximumHoles = 256

    static func marker(_ hole: Int) -> String {
        String(Character(Unicode.Scalar(UInt32(0xE000 + hole))!))
    }

    /// Splits `encoded` at its markers; nil when `plain` (the same payload with empty holes)
    /// has a marker scalar of its own, so a hole could not be told from the text.
    init?(encoded: [UInt8], plain: [UInt8], holes: Int, language: LanguageTag, pushType: PushType) {
        guard Self.firstMarker(in: plain, from: 0) == nil else { return nil }
        var pieces = [Piece]()
        var start = 0
        var index = 0
        while let found = Self.firstMarker(in: encoded, from: index) {
            guard found.hole < holes else { return nil }
            pieces.append(Piece(literal: start..<found.at, argument: found.hole))
            index = found.at + 3
            start = index
        }
        pieces.append(Piece(literal: start..<encoded.count, argument: -1))
        self.bytes = encoded
        self.pieces = pieces
        self.language = language
        self.pushType = pushType
    }

    /// The next U+E000…U+E0FF scalar in UTF-8 (EE 80…83 xx) at or after `index`.
    private static func firstMarker(in bytes: [UInt8], from index: Int) -> (at: Int, hole: Int)? {
        var index = index
        while index + 2 < bytes.count {
            if bytes[index] == 0xEE, (0x80...0x83).contains(bytes[index + 1]) {
                let hole = Int(bytes[index + 1] & 0x03) << 6 | Int(bytes[index + 2] & 0x3F)
                return (index, hole)
            }
            index += 1
        }
        return nil
    }
}

extension CompiledTemplate {
    /// The argument expressions that read the device (attributes, user ID), in hole order:
    /// title, subtitle, body, each in argument order.
    var recipientArguments: [ArgumentExpression] {
        [title, subtitle, body].flatMap { $0?.arguments.filter(\.readsRecipient) ?? [] }
    }

    /// The skeleton for one language, authorization shape and combination of plural
    /// categories, or nil where the full renderer must decide (an argument without a value, a
    /// payload that fails its checks).
    func skeleton(
        languageIndex index: Int, authorization: AuthorizationSettings, options: RenderOptions, settings: PayloadOptions,
        forced: ForcedCategories = ForcedCategories()
    ) -> PayloadSkeleton? {
        let pushType = settings.pushType ?? .alert
        let context = ArgumentContext(
            recipient: Recipient(authorization: authorization), variables: options.variables,
            formatting: localizations[index].formatting)
        var hole = 0
        var marked = Arguments()
        var plain = Arguments()
        for (part, path) in [(title, \Arguments.title), (subtitle, \.subtitle), (body, \.body)] {
            guard let part else { continue }
            for argument in part.arguments {
                if argument.readsRecipient {
                    guard hole < PayloadSkeleton.maximumHoles else { return nil }
                    marked[keyPath: path].append(PayloadSkeleton.marker(hole))
                    plain[keyPath: path].append("")
                    hole += 1
                } else {
                    guard let value = argument.evaluate(in: context) else { return nil }
                    marked[keyPath: path].append(value)
                    plain[keyPath: path].append(value)
                }
            }
        }
        func encode(_ arguments: Arguments) -> [UInt8]? {
            let payload = payload(
                languageIndex: index, arguments: arguments, settings: settings, mode: options.mode,
                authorization: authorization, forced: forced)
            return try? payload.validate(for: pushType)
        }
        guard let encoded = encode(marked), let plainBytes = encode(plain) else { return nil }
        return PayloadSkeleton(
            encoded: encoded, plain: plainBytes, holes: hole, language: languages[index], pushType: pushType)
    }
}

extension ArgumentExpression {
    /// True when the value can differ between devices of one language: it reads the device,
    /// or formats a date in the device's time zone.
    var readsRecipient: Bool {
        if filter?.readsTimeZone == true { return true }
        return terms.contains {
            switch $0 {
            case .attribute, .userID: true
            case .variable, .deviceLanguage, .literal: false
            }
        }
    }
}

import APNSCore
import HeraldCore

extension CompiledTemplate {
    /// Renders the notification one device gets.
    ///
    /// Order: payload settings (template defaults, then `options.payload`); skip an alert push
    /// to a device that does not allow alerts; negotiate the language; evaluate the arguments
    /// (a missing one skips the device); build the alert (server: finished text; client:
    /// loc-keys and loc-args, plus default-language text when the template asks for it);
    /// shape by authorization; encode and check, shortening server-rendered text to fit.
    ///
    /// A campaign renders many devices with one set of options: ``TemplateRenderer`` does the
    /// same work once per language and authorization shape and gives the same bytes.
    public func render(for recipient: Recipient, options: RenderOptions = RenderOptions()) -> RenderOutcome {
        let settings = settings(for: options)
        let pushType = settings.pushType ?? .alert
        if pushType == .background { return background(settings: settings) }
        if pushType == .alert, !recipient.authorization.allowsAlerts {
            return .skipped(.notAuthorized)
        }
        let index = languageIndex(for: recipient.languages)
        let context = ArgumentContext(
            recipient: recipient, variables: options.variables, formatting: localizations[index].formatting)
        var arguments = Arguments()
        for (part, path) in [(title, \Arguments.title), (subtitle, \.subtitle), (body, \.body)] {
            guard let part else { continue }
            guard let values = part.evaluate(in: context) else {
                return .skipped(.missingArgument(part.missingArgument(in: context)))
            }
            arguments[keyPath: path] = values
        }
        let payload = payload(
            languageIndex: index, arguments: arguments, settings: settings, mode: options.mode,
            authorization: recipient.authorization)
        return finish(payload, pushType: pushType, language: languages[index], mode: options.mode)
    }

    /// A background update: `aps` holds only `content-available`, the custom keys go beside it,
    /// and every device gets the same bytes whatever its alert settings (background pushes need
    /// no permission). The template's default language is what the ledger records.
    func background(settings: PayloadOptions) -> RenderOutcome {
        let payload = Payload(aps: Payload.APS(contentAvailable: true), custom: settings.custom ?? [:])
        return finish(payload, pushType: .background, language: defaultLanguage, mode: .client)
    }

    /// The argument texts of each part.
    struct Arguments {
        var title = [String]()
        var subtitle = [String]()
        var body = [String]()
    }

    /// Plural categories forced per part and substitution name (skeletons are built per
    /// combination of categories, before the counts are known).
    struct ForcedCategories {
        var title = [String: PluralCategory]()
        var subtitle = [String: PluralCategory]()
        var body = [String: PluralCategory]()
    }

    /// The template's payload defaults with the call's overrides.
    func settings(for options: RenderOptions) -> PayloadOptions {
        options.payload.isEmpty ? payloadDefaults : payloadDefaults.overridden(by: options.payload)
    }

    /// The index in ``languages`` a device reading `preferred` gets.
    func languageIndex(for preferred: [LanguageTag]) -> Int {
        negotiator.choice(for: preferred).index ?? defaultIndex
    }

    /// The payload for one language and set of argument texts, shaped by authorization.
    func payload(
        languageIndex index: Int, arguments: Arguments, settings: PayloadOptions, mode: LocalizationMode,
        authorization: AuthorizationSettings, forced: ForcedCategories = ForcedCategories()
    ) -> Payload {
        var alert = Payload.Alert()
        switch mode {
        case .server:
            let localization = localizations[index]
            let formatting = localization.formatting
            alert.title = localization.title?.render(arguments: arguments.title, formatting: formatting, categories: forced.title)
            alert.subtitle = localization.subtitle?.render(
                arguments: arguments.subtitle, formatting: formatting, categories: forced.subtitle)
            alert.body = localization.body?.render(arguments: arguments.body, formatting: formatting, categories: forced.body)
        case .client:
            if let title {
                alert.titleLocKey = title.key
                alert.titleLocArgs = arguments.title.isEmpty ? nil : arguments.title
            }
            if let subtitle {
                alert.subtitleLocKey = subtitle.key
                alert.subtitleLocArgs = arguments.subtitle.isEmpty ? nil : arguments.subtitle
            }
            if let body {
                alert.locKey = body.key
                alert.locArgs = arguments.body.isEmpty ? nil : arguments.body
            }
            if document.clientFallback {
                // Shown by devices whose app does not have the keys (an older app version).
                let fallback = localizations[defaultIndex]
                let formatting = fallback.formatting
                alert.title = fallback.title?.render(arguments: arguments.title, formatting: formatting, categories: forced.title)
                alert.subtitle = fallback.subtitle?.render(
                    arguments: arguments.subtitle, formatting: formatting, categories: forced.subtitle)
                alert.body = fallback.body?.render(arguments: arguments.body, formatting: formatting, categories: forced.body)
            }
        }

        var aps = Payload.APS(alert: .fields(alert))
        aps.badge = settings.badge
        aps.sound = settings.payloadSound
        aps.threadID = settings.threadID
        aps.category = settings.category
        aps.interruptionLevel = settings.interruptionLevel
        aps.relevanceScore = settings.relevanceScore
        aps.mutableContent = settings.mutableContent ?? false
        PayloadShaping.shape(&aps, for: authorization)
        return Payload(aps: aps, custom: settings.custom ?? [:])
    }

    /// Encodes and checks the payload; shortens server-rendered text when it is too large.
    private func finish(_ payload: Payload, pushType: PushType, language: LanguageTag, mode: LocalizationMode) -> RenderOutcome {
        do throws(NotificationError) {
            let encoded = try payload.validate(for: pushType)
            return .payload(RenderedNotification(pushType: pushType, language: language, encoded: encoded))
        } catch {
            guard case .payloadTooLarge(let size, let limit) = error else {
                return .failed(RenderError(template: name, language: language.value, reason: error.description))
            }
            guard mode == .server else {
                return .failed(
                    RenderError(
                        template: name, language: language.value,
                        reason: "the payload is \(size) bytes, over the \(limit)-byte limit for \(pushType.rawValue) pushes; "
                            + "client-mode loc-args cannot be shortened"
                    )
                )
            }
            guard let fitted = PayloadFitting.fit(payload, limit: limit) else {
                return .failed(
                    RenderError(
                        template: name, language: language.value,
                        reason: "the payload is \(size) bytes, over the \(limit)-byte limit for \(pushType.rawValue) pushes, "
                            + "even with the body and title shortened"
                    )
                )
            }
            return .payload(RenderedNotification(pushType: pushType, language: language, encoded: fitted.encoded, shortened: true))
        }
    }
}

/// The plural form a server-rendered part picks for one recipient: shown by previews.
public struct PluralChoice: Sendable, Equatable {
    /// `title`, `subtitle` or `body`.
    public var part: String
    /// The substitution's name (`items` for `%#@items@`).
    public var substitution: String
    /// The 1-based argument that counts.
    public var argument: Int
    /// The argument's text, as the expression gave it.
    public var value: String
    public var category: PluralCategory
}

extension CompiledTemplate {
    /// The plural forms `recipient` gets in server mode, in part order; empty when the
    /// language's strings have no plurals or an argument has no value.
    public func pluralChoices(for recipient: Recipient, options: RenderOptions = RenderOptions()) -> [PluralChoice] {
        let index = languageIndex(for: recipient.languages)
        let localization = localizations[index]
        let context = ArgumentContext(recipient: recipient, variables: options.variables, formatting: localization.formatting)
        var choices = [PluralChoice]()
        for (name, part, string) in [
            (PartName.title, title, localization.title), (.subtitle, subtitle, localization.subtitle), (.body, body, localization.body),
        ] {
            guard let part, let string, !string.substitutionOrder.isEmpty, let values = part.evaluate(in: context) else { continue }
            let categories = string.categories(arguments: values, rules: localization.formatting.plurals)
            for (substitution, category) in zip(string.substitutionOrder, categories) {
                let index = string.selectingIndex[substitution] ?? 0
                choices.append(
                    PluralChoice(
                        part: name.rawValue, substitution: substitution, argument: index + 1,
                        value: index < values.count ? values[index] : "", category: category))
            }
        }
        return choices
    }
}

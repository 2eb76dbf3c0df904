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
    public func render(for recipient: Recipient, options: RenderOptions = RenderOptions()) -> RenderOutcome {
        let settings = options.payload.isEmpty ? payloadDefaults : payloadDefaults.overridden(by: options.payload)
        let pushType = settings.pushType ?? .alert
        if pushType == .alert, !recipient.authorization.allowsAlerts {
            return .skipped(.notAuthorized)
        }
        let index = negotiator.choice(for: recipient.languages).index ?? defaultIndex
        let language = languages[index]
        let context = ArgumentContext(recipient: recipient, variables: options.variables, language: language)

        var titleArguments = [String]()
        var subtitleArguments = [String]()
        var bodyArguments = [String]()
        if let title {
            guard let values = title.evaluate(in: context) else { return .skipped(.missingArgument(title.missingArgument(in: context))) }
            titleArguments = values
        }
        if let subtitle {
            guard let values = subtitle.evaluate(in: context) else {
                return .skipped(.missingArgument(subtitle.missingArgument(in: context)))
            }
            subtitleArguments = values
        }
        if let body {
            guard let values = body.evaluate(in: context) else { return .skipped(.missingArgument(body.missingArgument(in: context))) }
            bodyArguments = values
        }

        var alert = Payload.Alert()
        switch options.mode {
        case .server:
            let localization = localizations[index]
            alert.title = localization.title?.render(arguments: titleArguments)
            alert.subtitle = localization.subtitle?.render(arguments: subtitleArguments)
            alert.body = localization.body?.render(arguments: bodyArguments)
        case .client:
            if let title {
                alert.titleLocKey = title.key
                alert.titleLocArgs = titleArguments.isEmpty ? nil : titleArguments
            }
            if let subtitle {
                alert.subtitleLocKey = subtitle.key
                alert.subtitleLocArgs = subtitleArguments.isEmpty ? nil : subtitleArguments
            }
            if let body {
                alert.locKey = body.key
                alert.locArgs = bodyArguments.isEmpty ? nil : bodyArguments
            }
            if document.clientFallback {
                // Shown by devices whose app does not have the keys (an older app version).
                let fallback = localizations[defaultIndex]
                alert.title = fallback.title?.render(arguments: titleArguments)
                alert.subtitle = fallback.subtitle?.render(arguments: subtitleArguments)
                alert.body = fallback.body?.render(arguments: bodyArguments)
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
        PayloadShaping.shape(&aps, for: recipient.authorization)
        let payload = Payload(aps: aps, custom: settings.custom ?? [:])
        return finish(payload, pushType: pushType, language: language, mode: options.mode)
    }

    /// Encodes and checks the payload; shortens server-rendered text when it is too large.
    private func finish(_ payload: Payload, pushType: PushType, language: LanguageTag, mode: LocalizationMode) -> RenderOutcome {
        do throws(NotificationError) {
            let encoded = try payload.validate(for: pushType)
            return .payload(RenderedNotification(payload: payload, pushType: pushType, language: language, encoded: encoded))
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
            return .payload(
                RenderedNotification(
                    payload: fitted.payload, pushType: pushType, language: language, encoded: fitted.encoded, shortened: true
                )
            )
        }
    }
}

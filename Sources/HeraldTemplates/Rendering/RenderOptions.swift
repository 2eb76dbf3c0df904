import APNSCore

/// How the text reaches the device (docs/apns.md "Localization").
public enum LocalizationMode: String, Codable, CaseIterable, Sendable {
    /// Herald sends finished text in the negotiated language.
    case server
    /// Herald sends `loc-key`/`loc-args` and the app's own strings do the rest.
    case client
}

/// What a campaign or an API call adds to a template for one send.
public struct RenderOptions: Sendable, Equatable {
    public var mode: LocalizationMode
    /// Send-time variables (`vars.NAME`).
    public var variables: [String: PayloadValue]
    /// Overrides of the template's payload defaults (a campaign's push options).
    public var payload: PayloadOptions

    public init(mode: LocalizationMode = .server, variables: [String: PayloadValue] = [:], payload: PayloadOptions = PayloadOptions()) {
        self.mode = mode
        self.variables = variables
        self.payload = payload
    }
}

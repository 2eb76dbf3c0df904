import APNSCore

/// The last provider token a connection verified. Clients reuse one token for up to an hour
/// (docs/apns.md "Provider tokens"), so one signature check per token and connection is enough;
/// age and team are still checked on every request.
struct ProviderTokenCache {
    private var jwt: String?
    private var verified: VerifiedProviderToken?

    init() {}

    /// The verified facts of `jwt` if it is the token remembered.
    func token(for jwt: String) -> VerifiedProviderToken? {
        self.jwt == jwt ? verified : nil
    }

    /// Remembers a token that verified.
    mutating func remember(_ jwt: String, as token: VerifiedProviderToken) {
        self.jwt = jwt
        verified = token
    }
}

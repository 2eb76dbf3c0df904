import APNSCore

/// An error of the domain that a caller can act on: a value breaking a rule, a change its
/// state does not allow, a refusal from APNs. Each says what kind of refusal it is; the API
/// turns that into a problem document in one place (its `ProblemMiddleware`), the CLI prints
/// `description` as its one line. `detail` and `description` never carry a token, key or SQL.
public protocol DomainError: Error, CustomStringConvertible, Sendable {
    var refusal: Refusal { get }
}

/// What kind of refusal a ``DomainError`` is, as a client sees it.
public struct Refusal: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The request is wrong and should not be repeated as it is (400).
        case badRequest
        /// A value breaks a rule (422).
        case invalid
        /// The thing's state does not allow it now (409).
        case conflict
        /// APNs refused, or is too busy (502, 429), or did not answer (503).
        case upstreamRefused
        case upstreamBusy
        case upstreamUnavailable
    }

    public var kind: Kind
    /// The problem type's last part, stable for clients to switch on (`invalid-field`).
    public var slug: String
    /// The problem's title: the same for every refusal of a slug.
    public var title: String
    /// One line for the caller.
    public var detail: String
    /// The field the refusal is about, as the caller wrote it.
    public var field: String?
    /// Seconds before trying again, for refusals that pass.
    public var retryAfter: Int?
    /// Every problem, when there are several (a template's); `field` is the first one's.
    public var problems: [FieldProblem]

    /// One of several problems of a refusal.
    public struct FieldProblem: Sendable, Equatable {
        public var field: String?
        public var message: String

        public init(field: String?, message: String) {
            self.field = field
            self.message = message
        }
    }

    public init(
        _ kind: Kind, slug: String, title: String, detail: String, field: String? = nil, retryAfter: Int? = nil,
        problems: [FieldProblem] = []
    ) {
        self.kind = kind
        self.slug = slug
        self.title = title
        self.detail = detail
        self.field = field
        self.retryAfter = retryAfter
        self.problems = problems
    }
}

extension ValidationError: DomainError {
    public var refusal: Refusal { Refusal(.invalid, slug: "invalid-field", title: "A field is invalid", detail: reason, field: field) }
}

extension CampaignError: DomainError {
    public var refusal: Refusal {
        Refusal(.conflict, slug: "invalid-transition", title: "Not allowed in this state", detail: description, field: "state")
    }
}

extension SeriesError: DomainError {
    public var refusal: Refusal {
        Refusal(.conflict, slug: "invalid-transition", title: "Not allowed in this state", detail: description, field: "state")
    }
}

extension CredentialStateError: DomainError {
    public var refusal: Refusal {
        Refusal(.conflict, slug: "credential-state", title: "Not allowed in this state", detail: description, field: "state")
    }
}

extension DeviceTokenError: DomainError {
    public var refusal: Refusal {
        Refusal(.badRequest, slug: "invalid-device-token", title: "The device token is invalid", detail: description, field: "token")
    }
}

extension ChannelManagementError: DomainError {
    public var refusal: Refusal {
        switch kind {
        case .activityHasChannel(let held):
            Refusal(
                .conflict, slug: "activity-has-channel", title: "The activity has a channel",
                detail: "\(detail) (\(held.value)): delete it first", field: "activityID")
        case .activityEnded:
            Refusal(
                .conflict, slug: "activity-ended", title: "The activity has ended",
                detail: "an end was sent to this activity: it takes no new channel", field: "activityID")
        case .refused(let status, let reason):
            Refusal(
                status == 429 ? .upstreamBusy : .upstreamRefused, slug: "apns-refused", title: "APNs refused the request",
                detail: "\(detail) (APNs reason \(reason))")
        case .unavailable:
            Refusal(.upstreamUnavailable, slug: "apns-unavailable", title: "APNs unavailable", detail: detail, retryAfter: 30)
        }
    }
}

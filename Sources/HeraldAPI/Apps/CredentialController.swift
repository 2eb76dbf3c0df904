import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `/v1/apps/{bundleID}/credentials`: an app's APNs credentials (`.p8` signing keys and `.p12`
/// client certificates), for admins. Add one (standby, or active at once), make one active,
/// retire an old one. Secrets go in and never come out: answers show the key ID or the
/// certificate's subject and expiry, a fingerprint, and the state. Sending
/// switches to a newly active key within `HERALD_APNS_CREDENTIAL_RECHECK_MS` on every instance,
/// without a restart and without dropping a notification (docs/admin.md "Credentials").
struct CredentialController {
    /// A `.p8` signing key: its ID and the file's text.
    struct SigningKeyBody: Decodable {
        var keyID: String
        var privateKey: String
    }

    /// `POST …/credentials`: a signing key (`kind` token, the default) or a client certificate
    /// (`kind` certificate, a `.p12` in base64 and its password), standby unless `activate`.
    struct AddBody: Decodable {
        var kind: AppCredential.Kind?
        var keyID: String?
        var privateKey: String?
        var certificate: String?
        var password: String?
        var activate: Bool?

        /// 422 naming the first of `fields` given, which the other kind takes.
        func refuse(_ fields: KeyPath<AddBody, String?>..., names: [String], kind: String) throws {
            for (field, name) in zip(fields, names) where self[keyPath: field] != nil {
                throw Problem.invalidField(name, "does not go with kind \(kind)")
            }
        }

        static func required(_ value: String?, _ field: String) throws -> String {
            guard let value else { throw Problem.invalidField(field, "is required") }
            return value
        }
    }

    /// A `.p8` is about 250 bytes; anything much bigger is not one.
    static let maximumPrivateKey = 8 * 1024

    let directory: AppDirectory
    let apps: any AppRepository
    let certificates: any CertificateReader

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.get(use: list)
        group.post(use: add)
        group.post(":credentialID/activate", use: activate)
        group.delete(":credentialID", use: retire)
    }

    @Sendable func list(request: Request, context: HeraldRequestContext) async throws -> CredentialListResponse {
        let app = try await adminApp(context)
        try RequestDecoding.noQuery(request)
        return CredentialListResponse(credentials: try await apps.credentials(appID: app.id).map(CredentialResponse.init))
    }

    @Sendable func add(request: Request, context: HeraldRequestContext) async throws -> EditedResponse<CredentialResponse> {
        let app = try await adminApp(context)
        let body = try await RequestDecoding.body(AddBody.self, of: request, context: context)
        let new: NewCredential
        switch body.kind ?? .token {
        case .token:
            try body.refuse(\.certificate, \.password, names: ["certificate", "password"], kind: "token")
            new = .signingKey(
                try NewSigningKey(
                    keyID: try AddBody.required(body.keyID, "keyID"),
                    pem: try Self.privateKey(try AddBody.required(body.privateKey, "privateKey"), field: "privateKey")))
        case .certificate:
            try body.refuse(\.keyID, \.privateKey, names: ["keyID", "privateKey"], kind: "certificate")
            new = .certificate(
                try certificates.read(
                    pkcs12: try Self.pkcs12(try AddBody.required(body.certificate, "certificate"), field: "certificate"),
                    password: body.password ?? "", bundleID: app.bundleID, now: Date(), field: ""))
        }
        let activate = body.activate ?? false
        let credential = try await apps.addCredential(
            appID: app.id, new, activate: activate, actor: try context.requirePrincipal().keyPrefix)
        return EditedResponse(status: .created, response: CredentialResponse(credential))
    }

    @Sendable func activate(request: Request, context: HeraldRequestContext) async throws -> CredentialResponse {
        try await change(context) { appID, id, actor in
            try await apps.activateCredential(appID: appID, credentialID: id, actor: actor)
        }
    }

    /// Retires a standby credential: its secret is wiped; the row stays as a record.
    @Sendable func retire(request: Request, context: HeraldRequestContext) async throws -> CredentialResponse {
        try await change(context) { appID, id, actor in
            try await apps.retireCredential(appID: appID, credentialID: id, actor: actor)
        }
    }

    /// Applies a state change to the path's credential: 404 for an unknown one, 409 for one
    /// whose state does not allow it.
    private func change(
        _ context: HeraldRequestContext, _ body: (Int64, Int64, String) async throws -> AppCredential?
    ) async throws -> CredentialResponse {
        let app = try await adminApp(context)
        let id = try Self.credentialID(context)
        guard let credential = try await body(app.id, id, try context.requirePrincipal().keyPrefix) else {
            throw Self.unknownCredential()
        }
        return CredentialResponse(credential)
    }

    private func adminApp(_ context: HeraldRequestContext) async throws -> App {
        try context.requirePrincipal().requireAdmin()
        return try await directory.require(bundleID: try context.parameters.require("bundleID"))
    }

    static func credentialID(_ context: HeraldRequestContext) throws -> Int64 {
        guard let id = Int64(try context.parameters.require("credentialID")), id > 0 else { throw unknownCredential() }
        return id
    }

    static func unknownCredential() -> Problem {
        Problem(
            status: .notFound, slug: "unknown-credential", title: "Unknown credential",
            detail: "this app has no credential with this ID", field: "credentialID")
    }

    /// Fields of the other kind are a mistake worth naming, not something to ignore.
    /// A `.p12` file as base64; never echoed back in an error.
    static func pkcs12(_ text: String, field: String) throws -> [UInt8] {
        // Base64 of the largest .p12 the reader takes (32 KiB), with room for line breaks.
        guard text.utf8.count <= 48 * 1024 else { throw Problem.invalidField(field, "is too large for a .p12 file") }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw Problem.invalidField(field, "must be the .p12 file in base64")
        }
        return Array(data)
    }

    /// The `.p8` PEM text; never echoed back in an error.
    static func privateKey(_ text: String, field: String) throws -> String {
        guard text.utf8.count <= maximumPrivateKey else {
            throw Problem.invalidField(field, "is too long for a .p8 signing key")
        }
        return text
    }
}

/// A credential as admins see it: never its secret.
struct CredentialResponse: ResponseEncodable {
    var id: String
    var kind: String
    var keyID: String?
    var fingerprint: String?
    var state: String
    var certificateSubject: String?
    var certificateExpiresAt: Date?
    var createdAt: Date
    var activatedAt: Date?
    var retiredAt: Date?
    var rejectedAt: Date?
    var rejectionReason: String?

    init(_ credential: AppCredential) {
        id = String(credential.id)
        kind = credential.kind.rawValue
        keyID = credential.keyID
        fingerprint = credential.fingerprint
        state = credential.state.rawValue
        certificateSubject = credential.certificateSubject
        certificateExpiresAt = credential.certificateExpiresAt
        createdAt = credential.createdAt
        activatedAt = credential.activatedAt
        retiredAt = credential.retiredAt
        rejectedAt = credential.rejectedAt
        rejectionReason = credential.rejectionReason
    }
}

struct CredentialListResponse: ResponseEncodable {
    var credentials: [CredentialResponse]
}

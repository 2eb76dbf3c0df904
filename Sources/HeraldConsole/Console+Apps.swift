import Foundation
import HeraldCore
import Hummingbird

extension Console {
    /// Admins see every app, how it reaches APNs and the state of its credentials.
    func appsPage(_ request: Request) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        var rows: [AppsView.Row] = []
        for app in try await dependencies.apps.list() {
            rows.append(AppsView.Row(app: app, credentials: try await dependencies.apps.credentials(appID: app.id)))
        }
        let body = AppsView.renderList(AppsView.ListModel(rows: rows, now: Date()))
        return ConsolePage.render(title: "Apps", session: session, section: .apps, body: body)
    }

    /// One app's credentials: add a `.p8` key or a `.p12` certificate, make a standby active,
    /// retire a standby.
    func appPage(_ request: Request, bundleID: String) async throws -> Response {
        let session = try await auth.require(request, role: .admin)
        return try await appCredentials(session: session, app: try await requireApp(bundleID), notice: nil)
    }

    func appSubmit(_ request: Request, bundleID: String) async throws -> Response {
        let (session, form) = try await auth.requireForm(request, role: .admin)
        let app = try await requireApp(bundleID)
        let actor = session.user.actor
        let changed: AppCredential?
        do {
            switch form["intent"] {
            case "add":
                let new = try newCredential(form, app: app)
                let credential = try await dependencies.apps.addCredential(appID: app.id, new, activate: form.has("activate"), actor: actor)
                let notice: HTML = "<p class=\"notice\" id=\"changed\">Added \(AppsView.name(of: credential)) as \(credential.state.rawValue).</p>"
                return try await appCredentials(session: session, app: app, notice: notice)
            case "activate":
                changed = try await dependencies.apps.activateCredential(appID: app.id, credentialID: try credentialID(form), actor: actor)
            case "retire":
                changed = try await dependencies.apps.retireCredential(appID: app.id, credentialID: try credentialID(form), actor: actor)
            default:
                throw ConsoleError.badRequest("Unknown action.")
            }
        } catch let error as ValidationError {
            return try await appCredentials(
                session: session, app: app, notice: "<p class=\"notice bad\" role=\"alert\">\(error.field): \(error.reason)</p>",
                status: .unprocessableContent)
        } catch let error as CredentialStateError {
            return try await appCredentials(
                session: session, app: app, notice: "<p class=\"notice bad\" role=\"alert\">\(error.description)</p>", status: .conflict)
        }
        guard let changed else { throw ConsoleError.notFound("credential with this ID for \(app.bundleID)") }
        let what: HTML =
            changed.state == .active
            ? "\(AppsView.name(of: changed)) is now active: every instance signs with it within seconds."
            : "\(AppsView.name(of: changed)) retired: its secret is wiped."
        return try await appCredentials(session: session, app: app, notice: "<p class=\"notice\" id=\"changed\">\(what)</p>")
    }

    /// The credential a form adds, checked as the API checks it; refusals name the field.
    private func newCredential(_ form: FormData, app: App) throws -> NewCredential {
        switch form["kind"] ?? "token" {
        case "token":
            guard let keyID = form["keyID"] else { throw ValidationError(field: "keyID", reason: "is required") }
            let pem = try form.file("p8").map { file -> String in
                guard file.bytes.count <= 8 * 1024, let text = String(validating: file.bytes, as: UTF8.self) else {
                    throw ValidationError(field: "p8", reason: "is not a .p8 signing key")
                }
                return text
            }
            guard let pem else { throw ValidationError(field: "p8", reason: "choose the AuthKey_\(keyID).p8 file") }
            do {
                return .signingKey(try NewSigningKey(keyID: keyID, pem: pem))
            } catch {
                // The form's file input is `p8`; the API's field is `privateKey`.
                throw error.field == "privateKey" ? ValidationError(field: "p8", reason: error.reason) : error
            }
        case "certificate":
            guard let certificates = dependencies.certificates else {
                throw ValidationError(field: "kind", reason: "certificates cannot be read here")
            }
            guard let file = form.file("p12") else { throw ValidationError(field: "p12", reason: "choose the .p12 file") }
            guard file.bytes.count <= 32 * 1024 else { throw ValidationError(field: "p12", reason: "is too large for a .p12 file") }
            return .certificate(
                try certificates.read(pkcs12: file.bytes, password: form.raw("password"), bundleID: app.bundleID, now: Date(), field: ""))
        default:
            throw ValidationError(field: "kind", reason: "must be token or certificate")
        }
    }

    private func credentialID(_ form: FormData) throws -> Int64 {
        guard let id = Int64(form.raw("credential")), id > 0 else { throw ConsoleError.badRequest("No credential given.") }
        return id
    }

    private func requireApp(_ bundleID: String) async throws -> App {
        guard let app = try await dependencies.apps.find(bundleID: bundleID) else { throw ConsoleError.notFound("app \(bundleID)") }
        return app
    }

    private func appCredentials(
        session: ConsoleSession, app: App, notice: HTML?, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let model = AppsView.Model(
            app: app, credentials: try await dependencies.apps.credentials(appID: app.id), notice: notice,
            acceptsCertificates: dependencies.certificates != nil, now: Date())
        return ConsolePage.render(
            title: app.bundleID, session: session, section: .apps, body: AppsView.render(model, session: session), status: status)
    }
}

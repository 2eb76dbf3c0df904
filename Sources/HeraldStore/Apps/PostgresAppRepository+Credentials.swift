import APNSCore
import Foundation
import HeraldCore
import Logging
import PostgresNIO

/// An app's credentials: one active, any number standby, retired ones kept as a record with
/// their secret wiped. Changes take the app's row lock, so two admins switching keys at once
/// take turns and the app never has two active credentials (a unique index says so too).
extension PostgresAppRepository {
    public func credentials(appID: Int64) async throws -> [AppCredential] {
        try await DatabaseMetrics.measure("apps.credentials") {
            let rows = try await client.query(
                "SELECT \(unescaped: Self.credentialColumns) FROM app_credentials WHERE app_id = \(appID) ORDER BY id",
                logger: logger)
            return try await rows.collect().map { try Self.decodeCredential($0) }
        }
    }

    public func addCredential(
        appID: Int64, _ new: NewCredential, activate: Bool, actor: String
    ) async throws
        -> AppCredential
    {
        try await DatabaseMetrics.measure("apps.addCredential") {
            let vault = try requireVault()
            return try await client.withDomainTransaction(logger: logger) { connection in
                guard try await Self.lockApp(appID, on: connection, logger: logger) else { throw StoreError.missingRow }
                // Never seal with a key that does not open what is stored already.
                try await SealedSecrets.requireOpenable(with: vault, on: connection, logger: logger)
                if activate {
                    try await connection.query(
                        "UPDATE app_credentials SET state = 'standby' WHERE app_id = \(appID) AND state = 'active'",
                        logger: logger)
                }
                let credential = try await Self.insertCredential(
                    new, appID: appID, state: activate ? .active : .standby, vault: vault, on: connection,
                    logger: logger)
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: activate ? "credential.add+activate" : "credential.add",
                    appID: appID, details: Self.auditDetails(credential), logger: logger)
                return credential
            }
        }
    }

    public func activateCredential(appID: Int64, credentialID: Int64, actor: String) async throws -> AppCredential? {
        try await DatabaseMetrics.measure("apps.activateCredential") {
            try await client.withDomainTransaction(logger: logger) { connection -> AppCredential? in
                guard try await Self.lockApp(appID, on: connection, logger: logger),
                    let credential = try await Self.credential(appID: appID, id: credentialID, on: connection, logger: logger)
                else { return nil }
                switch credential.state {
                case .active: return credential
                case .retired: throw CredentialStateError("credential \(credentialID) is retired: its secret is gone; add the key again")
                case .standby: break
                }
                try await connection.query(
                    "UPDATE app_credentials SET state = 'standby' WHERE app_id = \(appID) AND state = 'active'", logger: logger)
                try await connection.query(
                    "UPDATE app_credentials SET state = 'active', activated_at = now() WHERE id = \(credentialID)",
                    logger: logger)
                let activated = try await Self.credential(appID: appID, id: credentialID, on: connection, logger: logger)
                guard let activated else { throw StoreError.missingRow }
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "credential.activate", appID: appID,
                    details: Self.auditDetails(activated), logger: logger)
                return activated
            }
        }
    }

    public func retireCredential(appID: Int64, credentialID: Int64, actor: String) async throws -> AppCredential? {
        try await DatabaseMetrics.measure("apps.retireCredential") {
            try await client.withDomainTransaction(logger: logger) { connection -> AppCredential? in
                guard try await Self.lockApp(appID, on: connection, logger: logger),
                    let credential = try await Self.credential(appID: appID, id: credentialID, on: connection, logger: logger)
                else { return nil }
                switch credential.state {
                case .retired: return credential
                case .active:
                    throw CredentialStateError(
                        "credential \(credentialID) is the active one: make another credential active first")
                case .standby: break
                }
                try await connection.query(
                    """
                    UPDATE app_credentials SET state = 'retired', secret_sealed = NULL, retired_at = now()
                    WHERE id = \(credentialID)
                    """, logger: logger)
                let retired = try await Self.credential(appID: appID, id: credentialID, on: connection, logger: logger)
                guard let retired else { throw StoreError.missingRow }
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: actor, action: "credential.retire", appID: appID,
                    details: Self.auditDetails(retired), logger: logger)
                return retired
            }
        }
    }

    public func activeCredential(appID: Int64) async throws -> ActiveCredential? {
        try await DatabaseMetrics.measure("apps.activeCredential") {
            let vault = try requireVault()
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.credentialColumns), secret_sealed, seal_format
                FROM app_credentials WHERE app_id = \(appID) AND state = 'active'
                """, logger: logger)
            guard let row = try await rows.collect().first else { return nil }
            let columns = row.makeRandomAccess()
            let credential = try Self.decodeCredential(columns)
            let sealed = try columns["secret_sealed"].decode(ByteBuffer.self)
            let format = try columns["seal_format"].decode(Int16.self)
            let text = try vault.open(Array(buffer: sealed), format: format, appID: appID, credentialID: credential.id)
            guard let secret = CredentialSecret(kind: credential.kind, sealedText: text) else {
                throw StoreError.unknownValue(
                    column: "app_credentials.secret_sealed", value: "(a \(credential.kind.rawValue) secret of another shape)")
            }
            return ActiveCredential(credential: credential, secret: secret)
        }
    }

    public func certificateExpiries() async throws -> [CertificateExpiry] {
        try await DatabaseMetrics.measure("apps.certificateExpiries") {
            let rows = try await client.query(
                """
                SELECT a.bundle_id, c.id, c.state, c.certificate_expires_at
                FROM app_credentials c JOIN apps a ON a.id = c.app_id
                WHERE c.kind = 'certificate' AND c.state <> 'retired' AND c.certificate_expires_at IS NOT NULL
                ORDER BY a.bundle_id, c.id
                """, logger: logger)
            return try await rows.collect().map { row in
                let (bundleID, id, state, expiresAt) = try row.decode((String, Int64, String, Date).self)
                return CertificateExpiry(
                    bundleID: bundleID, credentialID: id,
                    state: try StoreError.decode(state, as: AppCredential.State.self, column: "app_credentials.state"),
                    expiresAt: expiresAt)
            }
        }
    }

    public func sendingState(appID: Int64) async throws -> AppSendingState? {
        let rows = try await client.query(
            """
            SELECT c.id, a.disabled_at IS NOT NULL, a.apns_endpoint, a.apns_ca_pem, a.apns_management_endpoint
            FROM \(unescaped: Self.source) WHERE a.id = \(appID)
            """, logger: logger)
        guard let row = try await rows.collect().first else { return nil }
        let (credentialID, disabled, endpoint, ca, management) = try row.decode((Int64?, Bool, String?, String?, String?).self)
        return AppSendingState(
            activeCredentialID: credentialID, disabled: disabled,
            connection: AppConnectionSettings(apnsEndpoint: endpoint, apnsCAPEM: ca, apnsManagementEndpoint: management))
    }

    /// Inserts a credential sealed to its own row: its ID is taken first so the seal can name it.
    public func recordRejection(appID: Int64, credentialID: Int64, reason: String) async throws -> Bool {
        try await DatabaseMetrics.measure("apps.recordRejection") {
            try await client.withDomainTransaction(logger: logger) { connection in
                // Once per credential, whichever instance sees it first.
                let rows = try await connection.query(
                    """
                    UPDATE app_credentials c SET rejected_at = now(), rejection_reason = \(reason)
                    FROM apps a
                    WHERE c.app_id = \(appID) AND c.id = \(credentialID) AND c.rejected_at IS NULL AND a.id = c.app_id
                    RETURNING a.bundle_id, c.kind, c.key_id, c.fingerprint, c.certificate_subject, c.state, c.rejected_at
                    """, logger: logger)
                guard let row = try await rows.collect().first else { return false }
                try await ChangeFeed.announceAppChange(appID, on: connection, logger: logger)
                let (bundleID, kind, keyID, fingerprint, subject, state, rejectedAt) =
                    try row.decode((String, String, String?, String?, String?, String, Date).self)
                let data = CredentialRejected(
                    app: bundleID, credentialID: String(credentialID), kind: kind, keyID: keyID, fingerprint: fingerprint,
                    certificateSubject: subject, state: state, reason: reason, rejectedAt: rejectedAt)
                try await WebhookOutbox.enqueue(
                    .credentialsRejected, appID: appID, data: try WebhookOutbox.encode(data), on: connection, logger: logger)
                try await AuditLog.record(
                    on: connection, actor: "engine", action: "credential.rejected", appID: appID,
                    details: ["credentialID": .int(Int(credentialID)), "reason": .string(reason)], logger: logger)
                return true
            }
        }
    }

    /// `credentials.rejected` data.
    struct CredentialRejected: Encodable {
        var app: String
        var credentialID: String
        var kind: String
        var keyID: String?
        var fingerprint: String?
        var certificateSubject: String?
        var state: String
        var reason: String
        var rejectedAt: Date
    }

    static func insertCredential(
        _ new: NewCredential, appID: Int64, state: AppCredential.State, vault: SigningKeyVault,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> AppCredential {
        let ids = try await connection.query(
            "SELECT nextval(pg_get_serial_sequence('app_credentials', 'id'))", logger: logger)
        guard let id = try await ids.collect().first?.decode(Int64.self) else { throw StoreError.missingRow }
        let sealed = ByteBuffer(bytes: try vault.seal(new.secret.sealedText, appID: appID, credentialID: id))
        var keyID: String?
        var subject: String?
        var expiresAt: Date?
        switch new {
        case .signingKey(let key): keyID = key.keyID
        case .certificate(let certificate):
            subject = certificate.subject
            expiresAt = certificate.expiresAt
        }
        let rows = try await connection.query(
            """
            INSERT INTO app_credentials (id, app_id, kind, key_id, secret_sealed, seal_format, fingerprint, state,
                                         certificate_subject, certificate_expires_at, activated_at)
            OVERRIDING SYSTEM VALUE
            VALUES (\(id), \(appID), \(new.kind.rawValue), \(keyID), \(sealed), 2, \(new.fingerprint), \(state.rawValue),
                    \(subject), \(expiresAt), CASE WHEN \(state == .active) THEN now() END)
            RETURNING \(unescaped: Self.credentialColumns)
            """, logger: logger)
        guard let row = try await rows.collect().first else { throw StoreError.missingRow }
        return try decodeCredential(row)
    }

    /// Takes the app's row lock; false for an unknown app.
    static func lockApp(_ appID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT id FROM apps WHERE id = \(appID) FOR UPDATE", logger: logger)
        return try await rows.collect().first != nil
    }

    static func credential(
        appID: Int64, id: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws
        -> AppCredential?
    {
        let rows = try await connection.query(
            "SELECT \(unescaped: credentialColumns) FROM app_credentials WHERE app_id = \(appID) AND id = \(id)",
            logger: logger)
        return try await rows.collect().first.map { try decodeCredential($0) }
    }

    static func auditDetails(_ credential: AppCredential) -> [String: PayloadValue] {
        var details: [String: PayloadValue] = [
            "credentialID": .int(Int(credential.id)), "kind": .string(credential.kind.rawValue),
        ]
        if let keyID = credential.keyID { details["keyID"] = .string(keyID) }
        if let fingerprint = credential.fingerprint { details["fingerprint"] = .string(fingerprint) }
        if let subject = credential.certificateSubject { details["subject"] = .string(subject) }
        return details
    }

    static let credentialColumns =
        "id, app_id, kind, key_id, fingerprint, state, certificate_subject, certificate_expires_at, created_at, "
        + "activated_at, retired_at, rejected_at, rejection_reason"

    static func decodeCredential(_ row: PostgresRow) throws -> AppCredential {
        try decodeCredential(row.makeRandomAccess())
    }

    /// Reads the credential columns by name, so a query may select more.
    static func decodeCredential(_ row: PostgresRandomAccessRow) throws -> AppCredential {
        AppCredential(
            id: try row["id"].decode(Int64.self), appID: try row["app_id"].decode(Int64.self),
            kind: try StoreError.decode(try row["kind"].decode(String.self), as: AppCredential.Kind.self, column: "app_credentials.kind"),
            keyID: try row["key_id"].decode(String?.self), fingerprint: try row["fingerprint"].decode(String?.self),
            state: try StoreError.decode(
                try row["state"].decode(String.self), as: AppCredential.State.self, column: "app_credentials.state"),
            certificateSubject: try row["certificate_subject"].decode(String?.self),
            certificateExpiresAt: try row["certificate_expires_at"].decode(Date?.self),
            createdAt: try row["created_at"].decode(Date.self), activatedAt: try row["activated_at"].decode(Date?.self),
            retiredAt: try row["retired_at"].decode(Date?.self), rejectedAt: try row["rejected_at"].decode(Date?.self),
            rejectionReason: try row["rejection_reason"].decode(String?.self))
    }
}

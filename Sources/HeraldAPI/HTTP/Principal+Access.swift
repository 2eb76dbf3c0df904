import HeraldCore

/// Who may do what (docs/rules.md "Who does what"): app keys touch only their own app's
/// devices; marketing reads devices but never changes or prunes them, and writes templates
/// and campaigns, for every app or only those its key is scoped to; admins do everything.
extension Principal {
    enum DeviceAccess {
        case read
        case write
    }

    func requireDeviceAccess(_ access: DeviceAccess, bundleID: String) throws {
        switch role {
        case .admin:
            return
        case .app:
            guard appBundleID == bundleID else {
                throw Problem.forbidden("this app key is for another app")
            }
        case .marketing:
            guard access == .read else {
                throw Problem.forbidden("marketing keys may read devices, not change them")
            }
            try requireScope(bundleID: bundleID)
        }
    }

    /// A marketing key scoped to some apps may not work on the others.
    func requireScope(bundleID: String) throws {
        guard mayUse(bundleID: bundleID) else { throw Problem.forbidden("this key is not for this app") }
    }

    /// Templates are marketing's work; app keys neither read nor write them.
    func requireTemplateAccess() throws {
        guard role == .marketing || role == .admin else {
            throw Problem.forbidden("only marketing and admin keys may use templates")
        }
    }

    /// Campaigns, like templates, are marketing's work.
    func requireCampaignAccess() throws {
        guard role == .marketing || role == .admin else {
            throw Problem.forbidden("only marketing and admin keys may use campaigns")
        }
    }

    /// Transactional sends: an app key for its own app, marketing and admin keys for any app.
    func requireSendAccess(bundleID: String) throws {
        if role == .app, appBundleID != bundleID {
            throw Problem.forbidden("this app key is for another app")
        }
        try requireScope(bundleID: bundleID)
    }

    /// Events come from the app: its own key, or an admin's.
    func requireEventAccess(bundleID: String) throws {
        switch role {
        case .admin:
            return
        case .app:
            guard appBundleID == bundleID else { throw Problem.forbidden("this app key is for another app") }
        case .marketing:
            throw Problem.forbidden("events come from the app: use its app key")
        }
    }

    func requireAdmin() throws {
        guard role == .admin else { throw Problem.forbidden("only admin keys may do this") }
    }
}

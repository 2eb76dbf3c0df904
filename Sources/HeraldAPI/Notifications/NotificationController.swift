import APNSCore
import Foundation
import HeraldCore
import Hummingbird

/// `POST /v1/apps/{bundleID}/notifications`: a transactional send, answered synchronously
/// with each recipient's outcome and recorded in the app's notifications ledger.
struct NotificationController {
    let directory: AppDirectory
    let sender: any DirectSending

    func addRoutes(to group: RouterGroup<HeraldRequestContext>) {
        group.post(use: send)
    }

    @Sendable func send(request: Request, context: HeraldRequestContext) async throws -> DirectSendResponse {
        let bundleID = try context.parameters.require("bundleID")
        let principal = try context.requirePrincipal()
        try principal.requireSendAccess(bundleID: bundleID)
        let app = try await directory.require(bundleID: bundleID)
        if app.disabledAt != nil {
            // As this instance saw it at most HERALD_APP_CACHE_SECONDS ago (at once, when the
            // change was announced); the sender checks again before anything leaves.
            throw Problem.appDisabled(app.bundleID)
        }
        let body = try await RequestDecoding.body(NotificationInput.Body.self, of: request, context: context)
        let requestID = UUID()
        var sendRequest = try NotificationInput.request(body, app: app, requestID: requestID, actor: principal.keyPrefix)
        if sendRequest.respectQuietHours || sendRequest.respectFrequencyCaps {
            // Its quiet hours and caps as they are now.
            sendRequest.app = try await directory.current(app)
        }
        return DirectSendResponse(requestID: requestID, results: try await sender.send(sendRequest))
    }
}

import APNSCore
import Foundation
import HeraldCore

/// Makes and removes broadcast channels at APNs through the app's sender, and keeps Herald's
/// record in step (docs/live-activities.md "Broadcast channels").
public struct ChannelManager: ChannelManaging {
    let channels: any BroadcastChannelRepository
    let senders: any SenderDirectory
    let clock: @Sendable () -> Date

    public init(
        channels: any BroadcastChannelRepository, senders: any SenderDirectory, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.channels = channels
        self.senders = senders
        self.clock = clock
    }

    public func create(
        app: App, environment: APNSEnvironment, storagePolicy: ChannelStoragePolicy, activityID: String?, actor: String
    ) async throws -> BroadcastChannel {
        // Checked before APNs is asked, so that no channel is made for nothing.
        if let activityID, let held = try await channels.activeChannel(appID: app.id, activityID: activityID, environment: environment) {
            throw ChannelManagementError(
                .activityHasChannel(held.channelID), detail: "the activity already has a \(environment.rawValue) channel")
        }
        let response = try await send(
            APNSChannelRequest(bundleID: app.bundleID, operation: .create(storagePolicy)), app: app, environment: environment)
        guard response.status == 201 || response.status == 200, let channelID = response.channelID else {
            throw Self.refusal(response, doing: "create a channel")
        }
        switch try await channels.insert(
            appID: app.id, channelID: channelID, environment: environment, storagePolicy: storagePolicy,
            activityID: activityID, actor: actor, now: clock())
        {
        case .stored(let channel):
            return channel
        case .activityHasChannel(let held):
            // Another request bound a channel first: the one just made is not kept.
            _ = try? await send(
                APNSChannelRequest(bundleID: app.bundleID, operation: .delete(channelID)), app: app, environment: environment)
            throw ChannelManagementError(
                .activityHasChannel(held), detail: "the activity already has a \(environment.rawValue) channel")
        case .activityEnded:
            _ = try? await send(
                APNSChannelRequest(bundleID: app.bundleID, operation: .delete(channelID)), app: app, environment: environment)
            throw ChannelManagementError(.activityEnded, detail: "the activity has ended")
        }
    }

    public func delete(app: App, channel: BroadcastChannel, actor: String) async throws -> BroadcastChannel {
        guard channel.state == .active else { return channel }
        let response = try await send(
            APNSChannelRequest(bundleID: app.bundleID, operation: .delete(channel.channelID)), app: app,
            environment: channel.environment)
        let state: BroadcastChannel.State
        switch response.status {
        case 200...299: state = .deleted
        case _ where response.reason == .channelNotRegistered: state = .gone
        default: throw Self.refusal(response, doing: "delete the channel")
        }
        guard
            let ended = try await channels.end(
                appID: app.id, channelID: channel.channelID, as: state, reason: response.reason?.rawValue, actor: actor)
        else { return channel }
        return ended
    }

    public func remoteChannels(app: App, environment: APNSEnvironment) async throws -> [BroadcastChannelID] {
        let response = try await send(APNSChannelRequest(bundleID: app.bundleID, operation: .list), app: app, environment: environment)
        guard response.status == 200, let list = ChannelList.parse(response.body) else {
            throw Self.refusal(response, doing: "list the channels")
        }
        return list
    }

    /// APNs's answer, or `unavailable` when there was none.
    private func send(_ request: APNSChannelRequest, app: App, environment: APNSEnvironment) async throws -> APNSResponse {
        let sender: any NotificationSender
        do {
            sender = try await senders.sender(appID: app.id, environment: environment)
        } catch let failure as SendFailure {
            throw ChannelManagementError(.unavailable, detail: "no sender for \(app.bundleID): \(failure.detail)")
        }
        switch await sender.send(request) {
        case .answered(let response), .deferred(let response):
            return response
        case .failed(let failure):
            throw ChannelManagementError(.unavailable, detail: "no answer from APNs for \(app.bundleID): \(failure.detail)")
        }
    }

    private static func refusal(_ response: APNSResponse, doing what: String) -> ChannelManagementError {
        let reason = response.reason?.rawValue ?? "status \(response.status)"
        return ChannelManagementError(
            .refused(status: response.status, reason: reason), detail: "APNs refused to \(what): \(response.status) \(reason)")
    }
}

import APNSCore
import HeraldCore

/// Sends notifications grouped by environment, each environment's group through its own sender
/// at once, and gives the results in input order. Campaign batches and direct sends both send
/// this way; `sender` finds an environment's sender or says why there is none (its whole group
/// then fails with that reason).
enum EnvironmentFanOut {
    static func send(
        _ items: [(environment: APNSEnvironment, notification: APNSNotification)],
        sender: @escaping @Sendable (APNSEnvironment) async -> Result<any NotificationSender, SendFailure>
    ) async -> [SendResult] {
        await send(items.map(\.notification), environment: { items[$0].environment }, sender: sender)
    }

    /// The same for notifications whose environments `environment` gives by position. When
    /// they all go to one environment (a campaign's batch, mostly), the array goes to its
    /// sender as it is; otherwise each group is a copy.
    static func send(
        _ all: [APNSNotification], environment: (Int) -> APNSEnvironment,
        sender: @escaping @Sendable (APNSEnvironment) async -> Result<any NotificationSender, SendFailure>
    ) async -> [SendResult] {
        var byEnvironment = [APNSEnvironment: [Int]]()
        for index in all.indices { byEnvironment[environment(index), default: []].append(index) }
        var results = [SendResult](repeating: .failed(SendFailure(.notSent, detail: "not sent")), count: all.count)
        await withTaskGroup(of: ([Int], [SendResult]).self) { group in
            for (environment, indices) in byEnvironment {
                let notifications = indices.count == all.count ? all : indices.map { all[$0] }
                group.addTask {
                    switch await sender(environment) {
                    case .success(let sender): return (indices, await sender.send(notifications))
                    case .failure(let failure): return (indices, indices.map { _ in .failed(failure) })
                    }
                }
            }
            for await (indices, answers) in group {
                for (index, answer) in zip(indices, answers) { results[index] = answer }
            }
        }
        return results
    }
}

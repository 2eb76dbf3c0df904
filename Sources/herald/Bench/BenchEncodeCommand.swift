import APNSCore
import ArgumentParser
import Foundation

struct BenchEncodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode", abstract: "Encode a typical payload N times with Herald's encoder and with JSONEncoder.")

    @Option(help: "Payloads to encode with each encoder.") var count = 1_000_000

    /// The same payload as a Codable value, the way a Foundation-based provider writes it.
    struct CodablePayload: Encodable {
        struct APS: Encodable {
            struct Alert: Encodable {
                var title: String
                var body: String
                var locKey: String
                var locArgs: [String]
                enum CodingKeys: String, CodingKey {
                    case title, body
                    case locKey = "loc-key"
                    case locArgs = "loc-args"
                }
            }
            var alert: Alert
            var badge: Int
            var sound: String
            var threadID: String
            enum CodingKeys: String, CodingKey {
                case alert, badge, sound
                case threadID = "thread-id"
            }
        }
        var aps: APS
        var campaign: String
        var deepLink: String
    }

    func run() throws {
        guard count > 0 else { throw CLIError("--count must be positive") }
        let args = ["Jenna", "Frank", "Monopoly"]
        let herald = Payload(
            aps: .init(
                alert: .fields(.init(title: "Partie lancée", body: "Jenna et Frank vous invitent à jouer 🎲", locKey: "GAME_INVITE", locArgs: args)),
                badge: 3, sound: .default, threadID: "games"),
            custom: ["campaign": "spring-2026", "deepLink": "app://games/42"])
        let codable = CodablePayload(
            aps: .init(
                alert: .init(title: "Partie lancée", body: "Jenna et Frank vous invitent à jouer 🎲", locKey: "GAME_INVITE", locArgs: args),
                badge: 3, sound: "default", threadID: "games"),
            campaign: "spring-2026", deepLink: "app://games/42")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]

        var bytes = 0
        let heraldTime = ContinuousClock().measure {
            var buffer = [UInt8]()
            for _ in 0..<count {
                buffer.removeAll(keepingCapacity: true)
                herald.encode(into: &buffer)
                bytes &+= buffer.count
            }
        }
        let foundationTime = ContinuousClock().measure {
            for _ in 0..<count { bytes &+= ((try? encoder.encode(codable))?.count ?? 0) }
        }
        func rate(_ duration: Duration) -> Double {
            Double(count) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        print("payload: \(herald.encoded().count) bytes")
        print(String(format: "Herald encoder: %.0f payloads/s", rate(heraldTime)))
        print(String(format: "JSONEncoder:    %.0f payloads/s", rate(foundationTime)))
        print(String(format: "ratio: %.1fx (checksum %d)", rate(heraldTime) / rate(foundationTime), bytes))
    }
}

import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldTemplates

struct BenchRenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a template for N recipients on one core, in server and client mode; print payloads/s.")

    @Option(help: "The templates folder.") var templates = "templates"
    @Option(help: "The template to render.") var template = "flash-sale"
    @Option(help: "Payloads to render per mode.") var count = 1_000_000

    /// Preferred-language lists as devices report them: regional variants, scripts, fallbacks.
    static let languageSets: [[String]] = [
        ["en-US"], ["en-GB"], ["de-DE", "en"], ["fr-CA", "fr"], ["es-MX"], ["es-ES"], ["pt-BR"], ["pt-PT"],
        ["zh-Hant-HK", "en-GB"], ["zh-Hans-CN"], ["ja-JP"], ["ar-SA", "en"], ["ko-KR", "en-US"], ["it-IT"],
    ]

    func run() throws {
        guard count > 0 else { throw CLIError("--count must be positive") }
        let documents: [TemplateDocument]
        do {
            documents = try TemplateLoader.load(directory: URL(fileURLWithPath: templates))
        } catch {
            throw CLIError("--templates: \(error.problems.first?.description ?? "cannot load \(templates)")")
        }
        guard let document = documents.first(where: { $0.name == template }) else {
            throw CLIError("--template: no template named \(template) in \(templates)")
        }
        let compiled: CompiledTemplate
        do { compiled = try CompiledTemplate(document) } catch { throw CLIError("--template: \(error)") }
        let authorization = AuthorizationSettings(status: .authorized, alert: true, badge: true, sound: true)
        let recipients = (0..<1024).map { n in
            Recipient(
                languages: Self.languageSets[n % Self.languageSets.count].compactMap { LanguageTag($0) },
                authorization: authorization, userID: "user-\(n)",
                attributes: ["firstName": .string("Ana \(n)"), "cartItemCount": .int(n % 9 + 1)])
        }
        let variables: [String: PayloadValue] = [
            "percentOff": .string("30"), "endTime": .string("20:00"), "storeName": .string("Herald Shop"),
        ]
        print("template \(template) (\(compiled.languages.count) languages), \(count) payloads per mode, one core")
        for mode in LocalizationMode.allCases {
            let options = RenderOptions(mode: mode, variables: variables)
            var bytes = 0
            var notRendered = 0
            let elapsed = ContinuousClock().measure {
                for n in 0..<count {
                    if case .payload(let rendered) = compiled.render(for: recipients[n & 1023], options: options) {
                        bytes &+= rendered.encoded.count
                    } else {
                        notRendered += 1
                    }
                }
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                String(
                    format: "%@ mode: %.0f payloads/s (%.2f µs each, mean %d bytes, %d not rendered)", mode.rawValue,
                    Double(count) / seconds, seconds / Double(count) * 1e6, bytes / max(count - notRendered, 1), notRendered))
        }
    }
}

import APNSCore
import ArgumentParser
import Foundation
import HeraldCore
import HeraldTemplates

struct BenchRenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render templates for N recipients on one core, in server and client mode; print payloads/s.",
        discussion: """
            Each template renders through TemplateRenderer (what campaigns use: one skeleton per \
            language and authorization shape, per-device arguments spliced in) and, for comparison, \
            through the full renderer that builds and encodes every payload.
            """)

    @Option(help: "The templates folder.") var templates = "templates"
    @Option(help: "The template to render (default: every template in the folder).") var template: String?
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
        let chosen = documents.filter { template == nil || $0.name == template }
        guard !chosen.isEmpty else {
            throw CLIError("--template: no template named \(template ?? "") in \(templates)")
        }
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
        print("\(count) payloads per template and mode, one core, 1024 recipients in \(Self.languageSets.count) language sets")
        for document in chosen {
            let compiled: CompiledTemplate
            do { compiled = try CompiledTemplate(document) } catch { throw CLIError("--template \(document.name): \(error)") }
            let arguments = [document.title, document.subtitle, document.body].compactMap { $0 }.flatMap(\.arguments)
            let perDevice = arguments.filter { $0.contains("attributes.") || $0.contains("user.id") }.count
            print("\(document.name): \(compiled.languages.count) languages, \(arguments.count) arguments, \(perDevice) read the device")
            for mode in LocalizationMode.allCases {
                let options = RenderOptions(mode: mode, variables: variables)
                var renderer = TemplateRenderer(template: compiled, options: options)
                report("  \(mode.rawValue) mode, renderer    ") { renderer.render(for: recipients[$0 & 1023]) }
                report("  \(mode.rawValue) mode, full render ") { compiled.render(for: recipients[$0 & 1023], options: options) }
            }
        }
    }

    private func report(_ label: String, _ render: (Int) -> RenderOutcome) {
        var bytes = 0
        var notRendered = 0
        let elapsed = ContinuousClock().measure {
            for n in 0..<count {
                if case .payload(let rendered) = render(n) {
                    bytes &+= rendered.encoded.count
                } else {
                    notRendered += 1
                }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            String(
                format: "%@: %9.0f payloads/s (%.2f µs each, mean %d bytes, %d not rendered)", label,
                Double(count) / seconds, seconds / Double(count) * 1e6, bytes / max(count - notRendered, 1), notRendered))
    }
}

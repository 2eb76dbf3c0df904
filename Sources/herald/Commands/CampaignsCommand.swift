import APNSCore
import ArgumentParser
import Foundation
import HeraldAPI
import HeraldCore
import HeraldServer
import HeraldStore

struct CampaignsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaigns", abstract: "Create, list, show and steer campaigns.",
        subcommands: [Create.self, List.self, Show.self, Schedule.self, Pause.self, Resume.self, Cancel.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a draft from a JSON file (the body POST /v1/campaigns takes) and print its ID.")

        @OptionGroup var options: CommonOptions
        @Option(help: "The campaign as JSON: app, name, templateName, audience, pushOptions, …") var file: String
        @Flag(help: "Schedule it at once (its sendAt, or now).") var schedule = false

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("--file: cannot read \(file)") }
            let (configuration, logger) = try options.load()
            let schedule = self.schedule
            let campaign = try await Store.with(configuration, logger: logger) { store in
                let draft: CampaignDraft
                do {
                    draft = try await CampaignFile.draft(json: Array(data)) { try await store.apps.find(bundleID: $0) }
                } catch let error as CampaignFileError {
                    throw CLIError("\(file): \(error.description)")
                }
                let created = try await store.campaigns.create(draft, actor: cliActor)
                guard schedule else { return created }
                return try await CampaignsCommand.apply(.schedule, to: created.publicID.canonicalString, store: store)
            }
            print(campaign.publicID.canonicalString)
            FileHandle.standardError.write(Data("\(campaign.name): \(campaign.state.rawValue)\n".utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List campaigns, newest first.")

        @OptionGroup var options: CommonOptions
        @Option(help: "Only campaigns in this state (draft, scheduled, running, paused, completed, cancelled, failed).")
        var state: String?
        @Option(help: "Only this app's campaigns (bundle ID).") var app: String?
        @Option(help: "At most this many (1 to 200).") var limit = 50

        func run() async throws {
            var query = CampaignListQuery(limit: limit)
            if let state {
                guard let parsed = CampaignState(rawValue: state) else {
                    throw CLIError("--state: one of \(CampaignState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                query.state = parsed
            }
            guard (1...CampaignListQuery.maximumLimit).contains(limit) else { throw CLIError("--limit: 1 to 200") }
            let (configuration, logger) = try options.load()
            let app = self.app
            let filter = query
            let rows = try await Store.with(configuration, logger: logger) { store in
                var query = filter
                if let app {
                    guard let found = try await store.apps.find(bundleID: app) else { throw CLIError("--app: no app \(app)") }
                    query.appID = found.id
                }
                return try await store.campaigns.list(query).campaigns.map { campaign in
                    let counters = campaign.counters
                    return [
                        campaign.publicID.canonicalString, campaign.state.rawValue, campaign.templateName,
                        "\(counters.done)/\(counters.audienceSize)", String(counters.accepted), campaign.name,
                    ]
                }
            }
            print(Table.render(header: ["ID", "STATE", "TEMPLATE", "DONE", "ACCEPTED", "NAME"], rows: rows))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a campaign and its counters; while it runs, follow it with a live progress bar.",
            discussion: "On a terminal a running campaign is followed until it finishes; --follow does so anywhere.")

        @OptionGroup var options: CommonOptions
        @Argument(help: "The campaign's ID.") var id: String
        @Flag(help: "Follow a scheduled, running or paused campaign until it finishes.") var follow = false

        func run() async throws {
            let (configuration, logger) = try options.load()
            let id = self.id
            let terminal = isatty(STDOUT_FILENO) == 1
            let follow = self.follow
            try await Store.with(configuration, logger: logger) { store in
                var campaign = try await CampaignsCommand.find(id, store: store)
                let head = CampaignsCommand.describe(campaign)
                guard follow || terminal, !campaign.state.isFinished, campaign.state != .draft else {
                    let breakdown = try await store.campaigns.breakdown(campaignID: campaign.id)
                    let report = CampaignReport(campaign: campaign, events: try await store.events.totals(campaignID: campaign.id))
                    let lines = [
                        head, ProgressBar.line(campaign),
                        CampaignsCommand.summary(campaign, breakdown: breakdown, report: report),
                    ]
                    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                    return
                }
                FileHandle.standardOutput.write(Data((head + "\n").utf8))
                while true {
                    let line = ProgressBar.line(campaign)
                    // Written unbuffered, so the bar moves even when standard output is a pipe.
                    FileHandle.standardOutput.write(Data(((terminal ? "\r\u{1B}[2K" : "") + line + (terminal ? "" : "\n")).utf8))
                    if campaign.state.isFinished { break }
                    try await Task.sleep(for: .milliseconds(500))
                    campaign = try await CampaignsCommand.find(id, store: store)
                }
                let breakdown = try await store.campaigns.breakdown(campaignID: campaign.id)
                let report = CampaignReport(campaign: campaign, events: try await store.events.totals(campaignID: campaign.id))
                let summary = CampaignsCommand.summary(campaign, breakdown: breakdown, report: report)
                FileHandle.standardOutput.write(Data(((terminal ? "\n" : "") + summary + "\n").utf8))
            }
        }
    }

    struct Schedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Schedule a draft: pin its template and start at sendAt.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The campaign's ID.") var id: String
        func run() async throws { try await CampaignsCommand.transition(.schedule, id: id, options: options) }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause a running campaign; batches in flight finish.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The campaign's ID.") var id: String
        func run() async throws { try await CampaignsCommand.transition(.pause, id: id, options: options) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a paused campaign.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The campaign's ID.") var id: String
        func run() async throws { try await CampaignsCommand.transition(.resume, id: id, options: options) }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a campaign for good; the rest counts as unsent.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The campaign's ID.") var id: String
        func run() async throws { try await CampaignsCommand.transition(.cancel, id: id, options: options) }
    }

    // MARK: - Shared

    static func transition(_ event: CampaignEvent, id: String, options: CommonOptions) async throws {
        let (configuration, logger) = try options.load()
        let campaign = try await Store.with(configuration, logger: logger) { try await apply(event, to: id, store: $0) }
        print("\(campaign.publicID.canonicalString): \(campaign.state.rawValue)")
    }

    static func apply(_ event: CampaignEvent, to id: String, store: Store) async throws -> Campaign {
        let campaign = try await find(id, store: store)
        do {
            guard let changed = try await store.campaigns.transition(id: campaign.id, event: event, actor: cliActor) else {
                throw CLIError("no campaign \(id)")
            }
            return changed
        } catch let error as CampaignError {
            throw CLIError(error.description)
        } catch let error as HeraldCore.ValidationError {
            throw CLIError("\(error.field): \(error.reason)")
        }
    }

    static func find(_ id: String, store: Store) async throws -> Campaign {
        guard let publicID = UUID(uuidString: id) else { throw CLIError("\(id) is not a campaign ID (a UUID)") }
        guard let campaign = try await store.campaigns.get(publicID: publicID) else { throw CLIError("no campaign \(id)") }
        return campaign
    }

    static func describe(_ campaign: Campaign) -> String {
        var lines = [
            "\(campaign.name) (\(campaign.publicID.canonicalString))",
            "  state:     \(campaign.state.rawValue)" + (campaign.failureReason.map { " (\($0))" } ?? ""),
            "  template:  \(campaign.templateName)" + (campaign.templateVersion.map { " v\($0)" } ?? "")
                + ", \(campaign.localization.rawValue)-side text",
        ]
        if let local = campaign.localDelivery {
            lines.append(
                "  delivery:  \(local.time) on \(local.date) in each device's time zone (a zone already past: \(local.latePolicy.rawValue))")
        } else if let sendAt = campaign.sendAt {
            lines.append("  send at:   \(sendAt.formatted(.iso8601))")
        }
        if let quiet = campaign.quietHours {
            lines.append("  quiet:     \(quiet.description) in each device's time zone: \(campaign.quietHoursMode.rawValue)")
        }
        if let rateLimit = campaign.rateLimit { lines.append("  rate:      \(rateLimit)/s per instance") }
        if let notes = campaign.notes { lines.append("  notes:     \(notes)") }
        for (index, variant) in campaign.variants.enumerated() {
            let message = campaign.message(index)
            lines.append(
                "  variant \(variant.name): weight \(variant.weight), \(message.templateName)"
                    + (message.templateVersion.map { " v\($0)" } ?? ""))
        }
        if campaign.holdoutBasisPoints > 0 {
            lines.append("  holdout:   \(Self.percent(Double(campaign.holdoutBasisPoints) / 10_000))")
        }
        return lines.joined(separator: "\n")
    }

    static func summary(
        _ campaign: Campaign, breakdown: CampaignBreakdown = CampaignBreakdown(), report: CampaignReport? = nil
    ) -> String {
        let c = campaign.counters
        var lines = [
            "  audience \(c.audienceSize): accepted \(c.accepted), failed \(c.failed), skipped \(c.skipped), "
                + "deferred \(c.deferred), unsent \(c.unsent), "
                + (campaign.holdoutBasisPoints > 0 ? "held out \(c.heldOut), " : "")
                + "pending \(c.pending); invalidated \(c.invalidated)"
        ]
        if let report { lines += reportLines(report, campaign: campaign) }
        for zone in c.zones {
            let name = zone.timeZone.isEmpty ? "(none: \(zone.effectiveTimeZone))" : zone.timeZone
            let due = zone.notBefore.map { " at \($0.formatted(.iso8601))" } ?? ""
            lines.append("  zone \(name): \(zone.state.rawValue)\(due), \(zone.done)/\(zone.devices)")
        }
        if !breakdown.acceptedByLanguage.isEmpty {
            let languages = breakdown.acceptedByLanguage.map { "\($0.language) \($0.count)" }
            lines.append("  accepted by language: " + languages.joined(separator: ", "))
        }
        for (reason, count) in breakdown.skippedByReason { lines.append("  skipped \(reason): \(count)") }
        for (reason, count) in c.failedByReason.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            guard reason == "Unregistered" else {
                lines.append("  failed \(reason): \(count)")
                continue
            }
            // docs/rules.md rule 1: a 410 invalidates only a device not registered again since APNs's timestamp.
            lines.append(
                "  failed Unregistered (410): \(count); invalidated \(c.invalidated), "
                    + "kept \(max(count - c.invalidated, 0)) (registered again after APNs's timestamp)")
        }
        return lines.joined(separator: "\n")
    }
}

extension CampaignsCommand {
    /// The per-variant table (and the holdout) with opens, conversions and the tests, when the
    /// campaign tests anything or its app reported events.
    static func reportLines(_ report: CampaignReport, campaign: Campaign) -> [String] {
        let hasEvents =
            report.variants.contains { ($0.opened?.count ?? 0) > 0 || $0.conversions > 0 }
            || (report.holdout?.conversions ?? 0) > 0
        guard campaign.variants.count > 1 || report.holdout != nil || hasEvents else { return [] }
        var lines = ["  variant        assigned       sent     opened (rate)         converted (rate)"]
        for line in report.variants + (report.holdout.map { [$0] } ?? []) {
            let opened = line.opened.map { "\($0.count) (\(rate($0)))" } ?? "-"
            lines.append(
                "  " + pad(line.name, 12) + pad(String(line.assigned), 11, left: true) + pad(String(line.sent), 11, left: true)
                    + "     " + pad(opened, 22) + "\(line.converted.count) (\(rate(line.converted)))")
        }
        for comparison in report.comparisons {
            let result = comparison.result
            lines.append(
                "  \(comparison.metric == .openRate ? "open rate" : "conversion rate") \(comparison.a) vs \(comparison.b): "
                    + "\(result.difference >= 0 ? "+" : "")\(percent(result.difference)) "
                    + "(95% \(percent(result.interval.lowerBound)) to \(percent(result.interval.upperBound))), "
                    + "p = \(String(format: "%.4f", result.pValue))" + (result.significant ? ", significant" : ""))
        }
        return lines
    }

    static func rate(_ proportion: Proportion) -> String {
        proportion.rate.map(percent) ?? "-"
    }

    static func percent(_ fraction: Double) -> String {
        String(format: "%.2f%%", fraction * 100)
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}

/// One line of progress: a bar of what is done, the figures, the state.
enum ProgressBar {
    static let width = 30

    static func line(_ campaign: Campaign) -> String {
        let c = campaign.counters
        guard !c.audienceCounting else {
            return "[\(String(repeating: "-", count: width))] counting the audience… \(c.done) done  accepted \(c.accepted) · "
                + "failed \(c.failed) · skipped \(c.skipped)  \(campaign.state.rawValue)"
        }
        let fraction = c.audienceSize == 0 ? (campaign.state.isFinished ? 1 : 0) : Double(c.done) / Double(c.audienceSize)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        return "[\(bar)] \(percent)% \(c.done)/\(c.audienceSize)  accepted \(c.accepted) · failed \(c.failed) · "
            + "skipped \(c.skipped)" + (c.heldOut > 0 ? " · held out \(c.heldOut)" : "") + "  \(campaign.state.rawValue)"
            + (c.partial ? "  (partial: a database worker is unavailable)" : "")
    }
}

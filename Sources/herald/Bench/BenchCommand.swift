import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure Herald's hot paths (figures go to BENCHMARKS.md).",
        subcommands: [
            BenchCampaignCommand.self, BenchSenderCommand.self, BenchEncodeCommand.self, BenchRenderCommand.self,
            BenchRetentionCommand.self, BenchWebhooksCommand.self, BenchLiveActivityCommand.self, BenchSegmentsCommand.self,
            BenchJourneysCommand.self,
        ])
}

import Foundation
import HeraldCore

/// The campaign page's charts, drawn by Herald as SVG: sends per minute, and outcomes by
/// language. No script and no library; the live refresh redraws them.
enum CampaignCharts {
    static let colours = (accepted: "#1b7f4b", failed: "#b3261e", skipped: "#9a6200", deferred: "#d29b2a", unsent: "#7d8797")

    /// APNs's answers per minute as bars (accepted below, failed above), at most 120 of them:
    /// a longer campaign is drawn in steps of several minutes.
    static func sendsPerMinute(_ minutes: [CampaignTimeline.Minute]) -> HTML {
        guard let first = minutes.first?.minute, let last = minutes.last?.minute else { return .empty }
        let span = Int(last.timeIntervalSince(first) / 60) + 1
        let step = max(1, (span + 119) / 120)
        let columns = (span + step - 1) / step
        var accepted = [Int](repeating: 0, count: columns)
        var failed = [Int](repeating: 0, count: columns)
        for minute in minutes {
            let column = min(columns - 1, Int(minute.minute.timeIntervalSince(first) / 60) / step)
            accepted[column] += minute.accepted
            failed[column] += minute.failed
        }
        let peak = max(1, zip(accepted, failed).map { $0 + $1 }.max() ?? 1)
        let (left, top, width, height) = (56.0, 10.0, 660.0, 150.0)
        // A short campaign keeps thin bars at the left rather than one bar across the chart.
        let barWidth = width / Double(max(columns, 30))
        var bars = HTML.empty
        for column in 0..<columns {
            let x = left + Double(column) * barWidth
            let acceptedHeight = height * Double(accepted[column]) / Double(peak)
            let failedHeight = height * Double(failed[column]) / Double(peak)
            let label =
                "\(ConsoleFormat.time(first.addingTimeInterval(Double(column * step * 60)))): \(ConsoleFormat.count(accepted[column])) accepted, \(ConsoleFormat.count(failed[column])) failed"
            bars += """
                <g><title>\(label)</title><rect x="\(f(x + 1))" y="\(f(top + height - acceptedHeight))" width="\(f(max(barWidth - 2, 1)))" height="\(f(acceptedHeight))" fill="\(colours.accepted)"></rect><rect x="\(f(x + 1))" y="\(f(top + height - acceptedHeight - failedHeight))" width="\(f(max(barWidth - 2, 1)))" height="\(f(failedHeight))" fill="\(colours.failed)"></rect></g>
                """
        }
        let grid = [0.0, 0.5, 1.0].html { share in
            let y = top + height - height * share
            return """
                <line x1="\(f(left))" y1="\(f(y))" x2="\(f(left + width))" y2="\(f(y))" stroke="#d9dee7"></line><text x="\(f(left - 6))" y="\(f(y + 4))" text-anchor="end">\(ConsoleFormat.count(Int(Double(peak) * share)))</text>
                """
        }
        let end = first.addingTimeInterval(Double((columns * step - 1) * 60))
        return """
            <h2>Sends per \(step == 1 ? "minute" : "\(step) minutes")</h2>
            <svg class="chart" id="sends-chart" viewBox="0 0 730 190" role="img" aria-label="Notifications answered per minute">\(grid)\(bars)
            <text x="\(f(left))" y="\(f(top + height + 18))">\(clock(first))\(columns == 1 ? " UTC" : "")</text>\(columns == 1 ? .empty : "<text x=\"\(f(left + barWidth * Double(columns) + (columns < 30 ? 4 : 0)))\" y=\"\(f(top + height + 18))\" text-anchor=\"\(columns < 30 ? "start" : "end")\">\(clock(end)) UTC</text>" as HTML)</svg>
            """
    }

    /// One stacked bar per language (the 12 with most devices), with its figures beside it.
    static func outcomesByLanguage(_ languages: [CampaignTimeline.Language]) -> HTML {
        let shown = languages.filter { $0.total > 0 }.prefix(12)
        guard let widest = shown.map(\.total).max() else { return .empty }
        let (left, barHeight, gap, width) = (90.0, 16.0, 8.0, 400.0)
        var rows = HTML.empty
        for (index, line) in shown.enumerated() {
            let y = Double(index) * (barHeight + gap)
            var x = left
            var segments = HTML.empty
            let parts = [
                ("accepted", line.accepted, colours.accepted), ("failed", line.failed, colours.failed),
                ("skipped", line.skipped, colours.skipped), ("deferred", line.deferred, colours.deferred),
                ("unsent", line.unsent, colours.unsent),
            ]
            for (name, count, colour) in parts where count > 0 {
                let w = width * Double(count) / Double(widest)
                segments +=
                    "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(barHeight))\" fill=\"\(colour)\"><title>\(line.language.isEmpty ? "not rendered" : line.language) \(name): \(ConsoleFormat.count(count))</title></rect>"
                x += w
            }
            rows += """
                <text x="\(f(left - 6))" y="\(f(y + 12))" text-anchor="end">\(line.language.isEmpty ? "not rendered" : line.language)</text>\(segments)<text x="\(f(x + 6))" y="\(f(y + 12))">\(ConsoleFormat.count(line.accepted)) accepted\(line.failed > 0 ? " · \(ConsoleFormat.count(line.failed)) failed" : "")\(line.skipped > 0 ? " · \(ConsoleFormat.count(line.skipped)) skipped" : "")</text>
                """
        }
        let height = Double(shown.count) * (barHeight + gap)
        return """
            <h2>Outcomes by language</h2>
            <svg class="chart" id="language-chart" viewBox="0 0 730 \(f(height))" role="img" aria-label="Outcomes by language">\(rows)</svg>
            """
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func clock(_ date: Date) -> String {
        String(ConsoleFormat.time(date).dropFirst(11).prefix(5))
    }
}

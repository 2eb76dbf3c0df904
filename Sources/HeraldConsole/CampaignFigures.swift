import Foundation
import HeraldCore

/// A campaign's counters, drawn: the progress bar, the figures, failures by reason, variants,
/// zones and the outcome chart. Each is rendered again for every live refresh.
enum CampaignFigures {
    static func progress(_ counters: CampaignCounters) -> HTML {
        // No value: an indeterminate bar until the audience's size is known.
        guard !counters.audienceCounting else {
            return """
                <progress aria-label="progress">counting the audience</progress>
                <span class="muted">counting the audience…</span>
                """
        }
        let whole = max(counters.audienceSize, 1)
        return """
            <progress max="\(whole)" value="\(counters.done)" aria-label="progress">\(ConsoleFormat.percent(counters.done, of: counters.audienceSize))</progress>
            <span class="muted">\(ConsoleFormat.percent(counters.done, of: counters.audienceSize))</span>
            """
    }

    static func figures(_ counters: CampaignCounters) -> HTML {
        let parts: [(String, String, Int)] = [
            ("audience", "Audience", counters.audienceSize), ("accepted", "Accepted", counters.accepted),
            ("failed", "Failed", counters.failed), ("invalidated", "Invalidated", counters.invalidated),
            ("skipped", "Skipped", counters.skipped), ("deferred", "Deferred", counters.deferred),
            ("unsent", "Unsent", counters.unsent), ("heldOut", "Held out", counters.heldOut),
            ("pending", "Pending", counters.pending),
        ]
        let figures: HTML =
            "<div class=\"figures\">\(parts.html { "<div id=\"figure-\($0.0)\"><b>\(ConsoleFormat.count($0.2))</b><span>\($0.1)</span></div>" })</div>"
        guard counters.partial else { return figures }
        return """
            <p class="notice" id="figures-partial">A database worker is unavailable: these figures leave out the devices it holds, \
            and Pending counts their outcomes.</p>
            """ + figures
    }

    static func failures(_ counters: CampaignCounters, ledger: ConsolePath) -> HTML {
        guard !counters.failedByReason.isEmpty else { return .empty }
        let rows = counters.failedByReason.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.html { reason, count in
            """
            <tr><td><a href="\("\(ledger)?outcome=failed&reason=\(query: reason)" as ConsolePath)">\(reason)</a></td>
            <td class="num">\(ConsoleFormat.count(count))</td><td class="num">\(ConsoleFormat.percent(count, of: counters.failed))</td></tr>
            """
        }
        return """
            <h2>Failed by reason</h2><div class="scroll"><table id="failures"><thead><tr><th>Reason</th><th class="num">Devices</th>
            <th class="num">Share</th></tr></thead><tbody>\(rows)</tbody></table></div>
            """
    }

    static func variants(_ campaign: Campaign, report: CampaignReport?) -> HTML {
        guard !campaign.variants.isEmpty else { return .empty }
        let lines = report.map { Dictionary($0.variants.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }) } ?? [:]
        var rows = campaign.counters.variants.html { variant in
            let line = lines[variant.name]
            return """
                <tr><td>\(variant.name)</td><td class="num">\(ConsoleFormat.count(variant.assigned))</td>
                <td class="num">\(ConsoleFormat.count(variant.accepted))</td><td class="num">\(ConsoleFormat.count(variant.failed))</td>
                <td class="num">\(rate(line?.opened))</td><td class="num">\(rate(line?.converted))</td></tr>
                """
        }
        if let holdout = report?.holdout {
            rows += """
                <tr><td>Holdout</td><td class="num">\(ConsoleFormat.count(holdout.assigned))</td><td class="num">–</td>
                <td class="num">–</td><td class="num">–</td><td class="num">\(rate(holdout.converted))</td></tr>
                """
        }
        return """
            <h2>Variants</h2><div class="scroll"><table id="variants"><thead><tr><th>Variant</th><th class="num">Assigned</th>
            <th class="num">Accepted</th><th class="num">Failed</th><th class="num">Opened</th><th class="num">Converted</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
    }

    static func rate(_ proportion: Proportion?) -> String {
        guard let proportion, let rate = proportion.rate else { return "–" }
        return String(format: "%.1f %%", rate * 100) + " (\(ConsoleFormat.count(proportion.count)))"
    }

    static func zones(_ counters: CampaignCounters) -> HTML {
        guard !counters.zones.isEmpty else { return .empty }
        let rows = counters.zones.prefix(100).html { zone in
            """
            <tr><td>\(zone.timeZone.isEmpty ? "(none)" : zone.timeZone)</td><td>\(zone.state.rawValue)</td>
            <td>\(ConsoleFormat.time(zone.notBefore))</td><td class="num">\(ConsoleFormat.count(zone.done)) / \(ConsoleFormat.count(zone.devices))</td></tr>
            """
        }
        return """
            <h2>Time zones</h2><div class="scroll"><table id="zones"><thead><tr><th>Zone</th><th>State</th><th>Due</th>
            <th class="num">Done</th></tr></thead><tbody>\(rows)</tbody></table></div>
            """
    }

    /// Outcomes as one stacked bar, drawn by Herald as SVG (no script, no library).
    static func outcomeChart(_ counters: CampaignCounters) -> HTML {
        let parts: [(String, Int, String)] = [
            ("Accepted", counters.accepted, "#1b7f4b"), ("Failed", counters.failed, "#b3261e"),
            ("Skipped", counters.skipped, "#9a6200"), ("Deferred", counters.deferred, "#d29b2a"),
            ("Unsent", counters.unsent, "#7d8797"), ("Held out", counters.heldOut, "#6b4fbb"),
            ("Pending", counters.pending, "#d9dee7"),
        ]
        guard parts.contains(where: { $0.1 > 0 }) else { return .empty }
        let total = parts.reduce(0) { $0 + $1.1 }
        let width = 720.0
        var x = 0.0
        var bars = HTML.empty
        var legend = HTML.empty
        var legendX = 0
        for (label, count, colour) in parts where count > 0 {
            let w = width * Double(count) / Double(total)
            bars +=
                "<rect x=\"\(format(x))\" y=\"0\" width=\"\(format(w))\" height=\"28\" fill=\"\(colour)\"><title>\(label): \(ConsoleFormat.count(count))</title></rect>"
            x += w
        }
        for (label, count, colour) in parts where count > 0 {
            legend +=
                "<rect x=\"\(legendX)\" y=\"40\" width=\"10\" height=\"10\" fill=\"\(colour)\"></rect><text x=\"\(legendX + 14)\" y=\"49\">\(label) \(ConsoleFormat.count(count))</text>"
            legendX += 14 + (label.count + ConsoleFormat.count(count).count + 1) * 7 + 12
        }
        return """
            <svg class="chart" id="outcome-chart" viewBox="0 0 \(max(720, legendX)) 56" role="img" aria-label="Outcomes">\(bars)\(legend)</svg>
            """
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

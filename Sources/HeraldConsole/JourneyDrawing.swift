import Foundation
import HeraldCore

/// A journey's graph drawn as SVG, with each step's counters (docs/journeys.md): steps in rows
/// by their distance from the start, arrows labelled with the path and how many took it; an
/// arrow back up (a loop) runs down the right side. Pure: a graph and a report in, markup out.
struct JourneyDrawing {
    static let boxWidth = 190
    static let boxHeight = 62
    static let columnGap = 40
    static let rowGap = 70
    static let margin = 20

    struct Box {
        var id: String
        var row: Int
        var column: Int
    }

    let graph: JourneyDefinition
    let counts: [String: JourneyReport.Step]
    /// A step to mark (the editor's problem is at it).
    let marked: String?

    init(graph: JourneyDefinition, report: JourneyReport?, marked: String? = nil) {
        self.graph = graph
        counts = Dictionary((report?.steps ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.marked = marked
    }

    /// Rows by the longest path from the start once the loops' edges back are set aside (a
    /// step sits below every step that leads to it); in a row, steps in the order first reached.
    var boxes: [String: Box] {
        // Depth first from the start: an edge to a step still on the path is a loop's way back.
        var back = Set<String>()
        var state = [String: Int]()  // 1: on the path, 2: done
        var finished = [String]()
        func visit(_ id: String) {
            state[id] = 1
            for next in graph.steps[id]?.successors ?? [] {
                switch state[next] {
                case nil: visit(next)
                case 1: back.insert("\(id)\u{1F}\(next)")
                default: break
                }
            }
            state[id] = 2
            finished.append(id)
        }
        visit(graph.start)
        var row = [graph.start: 0]
        for id in finished.reversed() {
            for next in graph.steps[id]?.successors ?? [] where !back.contains("\(id)\u{1F}\(next)") {
                row[next] = max(row[next] ?? 0, (row[id] ?? 0) + 1)
            }
        }
        // Columns in the order steps are first reached, breadth first.
        var order = [graph.start]
        var seen: Set<String> = [graph.start]
        var index = 0
        while index < order.count {
            for next in graph.steps[order[index]]?.successors ?? [] where seen.insert(next).inserted { order.append(next) }
            index += 1
        }
        var boxes = [String: Box]()
        var used = [Int: Int]()
        for id in order {
            let r = row[id] ?? 0
            boxes[id] = Box(id: id, row: r, column: used[r, default: 0])
            used[r, default: 0] += 1
        }
        return boxes
    }

    func svg() -> HTML {
        let boxes = self.boxes
        let columns = max(boxes.values.map { $0.column + 1 }.max() ?? 1, 1)
        let rows = (boxes.values.map(\.row).max() ?? 0) + 1
        // Edges that skip a row run down the left side, each in a lane of its own.
        let skips = boxes.values.reduce(0) { total, box in
            total + (graph.steps[box.id]?.successors ?? []).filter { (boxes[$0]?.row ?? 0) > box.row + 1 }.count
        }
        let offset = skips * 16 + (skips > 0 ? 70 : 0)
        func left(_ box: Box) -> Int { offset + Self.margin + box.column * (Self.boxWidth + Self.columnGap) }
        let width = offset + Self.margin * 2 + columns * Self.boxWidth + (columns - 1) * Self.columnGap + 60
        let height = Self.margin * 2 + rows * Self.boxHeight + (rows - 1) * Self.rowGap
        var edges: HTML = .empty
        var nodes: HTML = .empty
        var loop = 0
        var skip = 0
        for id in boxes.keys.sorted(by: { order(boxes[$0]!, boxes[$1]!) }) {
            guard let box = boxes[id], let step = graph.steps[id] else { continue }
            for (index, next) in step.successors.enumerated() {
                guard let target = boxes[next] else { continue }
                let path = pathName(step, index)
                let taken = counts[id]?.paths[path]
                let label = taken.map { "\(path) \($0)" } ?? path
                let (x1, y1) = (left(box) + Self.boxWidth / 2 + (index - (step.successors.count - 1) / 2) * 24, top(box) + Self.boxHeight)
                let (x2, y2) = (left(target) + Self.boxWidth / 2, top(target))
                if target.row > box.row + 1 {
                    // Down past other rows: out of the box's left side, along a lane, into the target's.
                    skip += 1
                    let lane = Self.margin + skip * 16
                    let (fromX, fromY) = (left(box), top(box) + Self.boxHeight / 2 + (index - (step.successors.count - 1) / 2) * 8)
                    let (toX, toY) = (left(target), top(target) + Self.boxHeight / 2 - 6 + skip % 3 * 6)
                    edges += """
                        <path class="edge skip" d="M\(fromX),\(fromY) H\(lane) V\(toY) H\(toX - 2)" marker-end="url(#arrow)"/>
                        <text class="edge-label" x="\(lane + 4)" y="\(fromY + 16 + skip % 2 * 12)">\(label)</text>
                        """
                } else if target.row > box.row {
                    edges += """
                        <path class="edge" d="M\(x1),\(y1) C\(x1),\(y1 + 35) \(x2),\(y2 - 35) \(x2),\(y2)" marker-end="url(#arrow)"/>
                        <text class="edge-label" x="\((x1 + x2) / 2 + 4)" y="\((y1 + y2) / 2)">\(label)</text>
                        """
                } else {
                    // Back up (or across): around the right side.
                    loop += 1
                    let side = width - 20 - loop * 8
                    let (fromX, fromY) = (left(box) + Self.boxWidth, top(box) + Self.boxHeight / 2)
                    let (toX, toY) = (left(target) + Self.boxWidth, top(target) + Self.boxHeight / 2)
                    edges += """
                        <path class="edge loop" d="M\(fromX),\(fromY) H\(side) V\(toY) H\(toX + 2)" marker-end="url(#arrow)"/>
                        <text class="edge-label" x="\(side - 4)" y="\((fromY + toY) / 2)" text-anchor="end">\(label)</text>
                        """
                }
            }
            let counters = counts[id]
            var line = "entered \(counters?.entered ?? 0)"
            if let waiting = counters?.waiting, waiting > 0 { line += " · waiting \(waiting)" }
            if case .send = step, let counters {
                line = "sent \(counters.deliveries["accepted"] ?? 0) · opened \(counters.opened)"
                if counters.converted > 0 { line += " · conv. \(counters.converted)" }
            }
            let classes = "step step-\(kind(step))" + (id == marked ? " marked" : "")
            nodes += """
                <g class="\(classes)" id="step-\(id)"><rect x="\(left(box))" y="\(top(box))" width="\(Self.boxWidth)" height="\(Self.boxHeight)" rx="8"/>
                <text class="step-id" x="\(left(box) + 10)" y="\(top(box) + 20)">\(id)</text>
                <text class="step-kind" x="\(left(box) + Self.boxWidth - 10)" y="\(top(box) + 20)" text-anchor="end">\(detail(step))</text>
                <text class="step-counts" x="\(left(box) + 10)" y="\(top(box) + 46)">\(line)</text></g>
                """
        }
        return """
            <svg class="journey-graph" id="journey-graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)" role="img" aria-label="The journey's steps">
            <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
            \(edges)\(nodes)</svg>
            """
    }

    private func order(_ a: Box, _ b: Box) -> Bool { (a.row, a.column) < (b.row, b.column) }

    private func top(_ box: Box) -> Int { Self.margin + box.row * (Self.boxHeight + Self.rowGap) }

    /// The report's name of a step's `index`th way on.
    func pathName(_ step: JourneyDefinition.Step, _ index: Int) -> String {
        switch step {
        case .waitFor: index == 0 ? "matched" : "timedOut"
        case .branch: index == 0 ? "yes" : "no"
        case .split: "path\(index + 1)"
        default: "next"
        }
    }

    func kind(_ step: JourneyDefinition.Step) -> String {
        switch step {
        case .send: "send"
        case .wait, .waitWindow: "wait"
        case .waitFor: "waitFor"
        case .branch: "branch"
        case .split: "split"
        case .exit: "exit"
        }
    }

    /// What the step does, in a few words.
    func detail(_ step: JourneyDefinition.Step) -> String {
        switch step {
        case .send(let template, _, _, _): "send \(template)"
        case .wait(let seconds, _): "wait \(Self.duration(seconds))"
        case .waitWindow(let window, _): "wait for \(window.description)"
        case .waitFor(.opened, let timeout, _, _): "opened? ≤ \(Self.duration(timeout))"
        case .waitFor(.event(let match), let timeout, _, _): "\(match.name)? ≤ \(Self.duration(timeout))"
        case .branch(.opened, _, _): "if opened"
        case .branch(.segment, _, _): "if segment"
        case .branch(.savedSegment(let name), _, _): "if in \(name)"
        case .split(let paths): "split " + paths.map { String($0.weight) }.joined(separator: ":")
        case .exit: "exit"
        }
    }

    static func duration(_ seconds: Int) -> String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400) d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        return "\(seconds / 60) min"
    }
}

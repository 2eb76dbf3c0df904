/// What a batch's new ledger rows add to its chunk's counters, counted in memory from the rows
/// the ledger INSERT returned: by outcome, by variant, by language, accepted and failed for the
/// minute, and failures by reason. The counters statement then writes plain numbers, with no
/// query over the inserted rows (on a Citus cluster such a query would reach every worker,
/// docs/scaling.md "When a worker stops").
struct BatchTally: Equatable {
    /// Counts of the five outcomes that the chunk's breakdowns keep, in this order.
    static let kinds = ["accepted", "failed", "skipped", "deferred", "unsent"]

    struct Counts: Equatable {
        var byKind = [Int64](repeating: 0, count: BatchTally.kinds.count)

        mutating func add(_ outcome: String) {
            if let index = BatchTally.kinds.firstIndex(of: outcome) { byKind[index] += 1 }
        }
    }

    /// Rows that were new, whatever their outcome (held out included).
    var total: Int64 = 0
    var outcomes = Counts()
    var heldOut: Int64 = 0
    var byVariant = [Int16: Counts]()
    /// By language ("" for none), held-out rows left out.
    var byLanguage = [String: Counts]()
    var failuresByReason = [String: Int64]()

    /// `rows`: each new row's outcome, reason, variant and language, as the INSERT returned them.
    init(_ rows: [(outcome: String, reason: String?, variant: Int16?, language: String?)]) {
        for row in rows {
            total += 1
            outcomes.add(row.outcome)
            if row.outcome == "heldOut" {
                heldOut += 1
            } else {
                byLanguage[row.language ?? "", default: Counts()].add(row.outcome)
            }
            if let variant = row.variant { byVariant[variant, default: Counts()].add(row.outcome) }
            if row.outcome == "failed" { failuresByReason[row.reason ?? "", default: 0] += 1 }
        }
    }

    func count(_ kind: String) -> Int64 { outcomes.byKind[Self.kinds.firstIndex(of: kind)!] }

    /// A breakdown as bound arrays: its keys, then one array per kind.
    static func columns<Key: Comparable>(_ breakdown: [Key: Counts]) -> (keys: [Key], counts: [[Int64]]) {
        let keys = breakdown.keys.sorted()
        return (keys, kinds.indices.map { index in keys.map { breakdown[$0]!.byKind[index] } })
    }
}

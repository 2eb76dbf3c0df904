/// A line diff by longest common subsequence: enough for template documents (hundreds of
/// lines); longer inputs are compared only in their first `limit` lines.
enum LineDiff {
    enum Line: Equatable {
        case same(String)
        case removed(String)
        case added(String)
    }

    static let limit = 2000

    static func diff(_ old: [String], _ new: [String]) -> [Line] {
        let a = Array(old.prefix(limit))
        let b = Array(new.prefix(limit))
        // lengths[i][j]: the LCS of a[i...] and b[j...].
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var lines = [Line]()
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                lines.append(.same(a[i]))
                i += 1
                j += 1
            } else if j < b.count, i == a.count || lengths[i][j + 1] >= lengths[i + 1][j] {
                lines.append(.added(b[j]))
                j += 1
            } else {
                lines.append(.removed(a[i]))
                i += 1
            }
        }
        return lines
    }
}

/// Comparing secrets (tokens, CSRF values) without telling, by how long it takes, where they
/// first differ.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` are the same non-empty text, in time that depends only on their
    /// lengths.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

import Foundation
import HeraldCore
import HeraldTemplates
import Synchronization

/// Templates compiled for direct sends (transactional notifications, journeys), by name,
/// version and content hash: a version's content never changes, so what was compiled once is
/// good for as long as the process lives. Bounded: past 256 entries it starts afresh.
final class CompiledTemplates: Sendable {
    static let shared = CompiledTemplates()
    static let capacity = 256

    private struct Key: Hashable {
        var name: String
        var version: Int
        var contentHash: String
    }

    private let compiled = Mutex([Key: CompiledTemplate]())

    func find(name: String, stamp: TemplateVersionStamp) -> CompiledTemplate? {
        compiled.withLock { $0[Key(name: name, version: stamp.version, contentHash: stamp.contentHash)] }
    }

    func keep(_ template: CompiledTemplate, name: String, stamp: TemplateVersionStamp) {
        compiled.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[Key(name: name, version: stamp.version, contentHash: stamp.contentHash)] = template
        }
    }
}

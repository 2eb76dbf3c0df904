import Crypto
import Foundation

/// The console's one stylesheet and one script, compiled into the binary: nothing to build,
/// nothing to install. Their paths carry a digest of their content, so browsers may cache
/// them for good and still fetch a new version at once.
enum ConsoleAssets {
    static let stylesheetPath = "/console/assets/console.css?v=\(digest(ConsoleStylesheet.text))"
    static let scriptPath = "/console/assets/console.js?v=\(digest(ConsoleScript.text))"

    static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(6).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

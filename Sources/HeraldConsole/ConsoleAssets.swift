import Crypto
import Foundation

/// The files of `Assets/`, compiled into the binary by the EmbedFiles build plugin (one member
/// per file: `console.css` is `consoleCSS`).
enum EmbeddedAssets {}

/// The console's one stylesheet and one script, compiled into the binary from `Assets/`:
/// nothing to build, nothing to install. Their paths carry a digest of their content, so
/// browsers may cache them for good and still fetch a new version at once.
enum ConsoleAssets {
    static let stylesheet = EmbeddedAssets.consoleCSS
    /// The page script, then the segment builder and the journey editor (each runs only on its page).
    static let script = EmbeddedAssets.consoleJS + EmbeddedAssets.segmentBuilderJS + EmbeddedAssets.journeyEditorJS
    static let stylesheetPath = "/console/assets/console.css?v=\(digest(stylesheet))"
    static let scriptPath = "/console/assets/console.js?v=\(digest(script))"

    static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(6).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

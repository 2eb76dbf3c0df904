import Foundation

/// Loads templates from folders:
///
///     templates/
///       welcome/
///         template.json                  everything but the strings
///         en.strings, pt-BR.strings …    one strings file per language, and/or
///         de.lproj/Localizable.strings   an app's layout, and/or
///         ru.stringsdict, ru.lproj/Localizable.stringsdict   plural strings, and/or
///         Localizable.xcstrings          a String Catalog
///
/// Every problem of every template is collected, so an author fixes them in one pass; problems
/// name files relative to the templates directory.
public enum TemplateLoader {
    /// Every template folder in `directory`, sorted by name; throws when any has a problem.
    public static func load(directory: URL) throws(TemplateLoadError) -> [TemplateDocument] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw TemplateLoadError(problems: [TemplateProblem(file: directory.path, message: "cannot read the templates directory")])
        }
        var documents = [TemplateDocument]()
        var problems = [TemplateProblem]()
        var folderCount = 0
        for name in names.sorted() where !name.hasPrefix(".") {
            let folder = directory.appendingPathComponent(name)
            guard isDirectory(folder) else { continue }
            folderCount += 1
            let loaded = loadFolder(folder, name: name)
            problems += loaded.problems
            if let document = loaded.document, loaded.problems.isEmpty {
                documents.append(document)
            }
        }
        if folderCount == 0 {
            problems.append(
                TemplateProblem(file: directory.path, message: "no template folders (each template is a folder with a template.json)")
            )
        }
        guard problems.isEmpty else { throw TemplateLoadError(problems: problems) }
        return documents
    }

    /// One template folder; problems name files relative to its parent.
    public static func loadTemplate(folder: URL) throws(TemplateLoadError) -> TemplateDocument {
        let loaded = loadFolder(folder, name: folder.lastPathComponent)
        guard let document = loaded.document, loaded.problems.isEmpty else {
            throw TemplateLoadError(problems: loaded.problems)
        }
        return document
    }

    static func loadFolder(_ folder: URL, name: String) -> (document: TemplateDocument?, problems: [TemplateProblem]) {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            return (nil, [TemplateProblem(file: name, message: "cannot read the template folder")])
        }
        var collector = StringsCollector()
        for file in files where !file.hasPrefix(".") {
            let url = folder.appendingPathComponent(file)
            if file.hasSuffix(".lproj"), isDirectory(url) {
                let language = String(file.dropLast(".lproj".count))
                // Base.lproj holds an app's interface files, not a language.
                if language == "Base" { continue }
                let dict = url.appendingPathComponent("Localizable.stringsdict")
                if FileManager.default.fileExists(atPath: dict.path) {
                    collector.readStringsDict(
                        at: dict, file: "\(name)/\(file)/Localizable.stringsdict", language: language, namedBy: "\(name)/\(file)")
                }
                let strings = url.appendingPathComponent("Localizable.strings")
                if FileManager.default.fileExists(atPath: strings.path) || !FileManager.default.fileExists(atPath: dict.path) {
                    collector.readStringsFile(
                        at: strings, file: "\(name)/\(file)/Localizable.strings", language: language, namedBy: "\(name)/\(file)")
                }
            } else if file.hasSuffix(".stringsdict") {
                let language = String(file.dropLast(".stringsdict".count))
                collector.readStringsDict(at: url, file: "\(name)/\(file)", language: language, namedBy: "\(name)/\(file)")
            } else if file.hasSuffix(".strings") {
                let language = String(file.dropLast(".strings".count))
                collector.readStringsFile(at: url, file: "\(name)/\(file)", language: language, namedBy: "\(name)/\(file)")
            } else if file.hasSuffix(".xcstrings") {
                collector.readCatalog(at: url, file: "\(name)/\(file)")
            }
        }

        let jsonFile = "\(name)/template.json"
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("template.json").path) else {
            return (nil, [TemplateProblem(file: jsonFile, message: "missing template.json")] + collector.problems)
        }
        let decoded = TemplateDocument.decode(json: data, file: jsonFile, allowStrings: false)
        guard var document = decoded.document else {
            return (nil, decoded.problems + collector.problems)
        }
        var problems = decoded.problems
        if document.name != name {
            problems.append(
                TemplateProblem(
                    file: jsonFile, field: "name",
                    message: "name \"\(document.name)\" does not match the folder name \"\(name)\""
                )
            )
        }
        problems += collector.problems
        document.strings = collector.strings
        document.plurals = collector.plurals.isEmpty ? nil : collector.plurals
        var validator = TemplateValidator(
            document: document, file: jsonFile, origins: collector.origins, unreadable: collector.unreadable
        )
        problems += validator.run()
        return (document, problems)
    }

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

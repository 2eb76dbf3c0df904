import HTTPTypes

/// What a console page answers instead of its content: a page with a status and one line.
struct ConsoleError: Error {
    var status: HTTPResponse.Status
    var title: String
    var message: String

    static func notFound(_ what: String) -> ConsoleError {
        ConsoleError(status: .notFound, title: "Not found", message: "No \(what) here; it may have been removed or the link is wrong.")
    }

    static func forbidden(_ message: String) -> ConsoleError {
        ConsoleError(status: .forbidden, title: "Not allowed", message: message)
    }

    static func badRequest(_ message: String) -> ConsoleError {
        ConsoleError(status: .badRequest, title: "Bad request", message: message)
    }

    static let expiredForm = ConsoleError(
        status: .forbidden, title: "Form expired",
        message: "This form is missing its security token or is from an earlier session. Go back, reload the page and try again.")
}

/// Sends the browser elsewhere: to sign in, or to the page a form's change shows.
struct ConsoleRedirect: Error {
    var location: String
}

import Logging

extension Logger {
    /// This logger, for PostgresNIO: at trace level it dumps protocol messages, bound values
    /// and result rows (device tokens among them), so it never gets below debug
    /// (docs/rules.md rule 9).
    public var forDatabase: Logger {
        var logger = self
        if logger.logLevel < .debug { logger.logLevel = .debug }
        return logger
    }
}

import Testing

@testable import HeraldStore

@Suite struct SQLScriptTests {
    @Test func splitsOnSemicolonsOutsideQuotesCommentsAndDollarBodies() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'it''s; fine');
            /* block; /* nested; */ comment */
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            SELECT "odd;name" FROM a WHERE x = $1;
            DO $$ BEGIN PERFORM 1; END $$;
            -- trailing comment
            """
        let statements = SQLScript.statements(in: script)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix("DEFAULT 'it''s; fine')"))
        #expect(statements[1].contains("$body$ SELECT 1; $body$"))
        #expect(statements[2].contains("\"odd;name\"") && statements[2].hasSuffix("$1"))
        #expect(statements[3] == "DO $$ BEGIN PERFORM 1; END $$")
    }

    @Test func theShippedMigrationsSplitIntoStatements() throws {
        let migrations = try Migration.load(from: HeraldStoreTestsSupport.migrationsDirectory)
        #expect(!migrations.isEmpty)
        for migration in migrations {
            #expect(!SQLScript.statements(in: migration.sql).isEmpty)
        }
    }
}

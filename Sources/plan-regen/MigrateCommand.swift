import ArgumentParser
import PlanStore

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Applies pending schema migrations (safe to run twice or concurrently).",
        discussion: """
            Applies the job's own migrations (sql/NNNN_*.sql, embedded in the binary) under an \
            advisory lock and records them in plan_regen_migrations.

            Examples:
              plan-regen migrate
              plan-regen migrate --with-reference-schema   # dev and demo databases

            """ + ExitCodes.help(ExitCodes.common))

    @OptionGroup var connection: ConnectionOptions

    @ArgumentParser.Flag(help: "Also create the app's reference user_settings table (development, demos, tests).")
    var withReferenceSchema = false

    func run() throws {
        try connection.run("migrate") { logger in
            let database = PlanStore(connection: try connection.connect(), timeouts: connection.timeouts).connection
            // Migrations say through NOTICEs what a DBA must do by hand (0003: grants); the
            // "already exists, skipping" notices of IF NOT EXISTS say nothing to act on.
            database.onNotice = { notice in
                if !notice.hasSuffix(", skipping") { logger.notice("\(notice)") }
            }
            let migrator = Migrator(connection: database)
            var applied: [String] = []
            if withReferenceSchema { applied += try migrator.apply(Migration.reference) }
            applied += try migrator.apply(Migration.planRegen)
            logger.info("migrations applied", metadata: [
                "applied": "\(applied.isEmpty ? "none (up to date)" : applied.joined(separator: ","))"])
            if try UserSettingsIndex.isMissing(on: database) { logger.warning("\(UserSettingsIndex.missingWarning)") }
        }
    }
}

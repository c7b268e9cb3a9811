import ArgumentParser
import Operations
import PlanRules
import ZoneFiles

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Shows what this binary's rules version would change for every user, before it ships.",
        discussion: """
            For the sign-off of a rules change: every user whose latest evaluation an older \
            rules version made is evaluated, with the run's own rules, at the local midnight \
            the rollout would reach them if it started now (plan-rules.md section 2.1). Prints \
            the users whose plan changes, per field how many change and the distribution of the \
            deltas, the notifications that would go out by type and locale, the rows the new \
            rules would reject, and the 20 largest calorie changes; users on newer rules are \
            counted apart. --format json keeps it as the sign-off record; --out writes the same \
            as a self-contained page with a chart of the calorie changes, for the people who sign \
            it off.

            Only reads: run it on a hot standby or through a pooler.

            Examples:
              plan-regen preview
              plan-regen preview --format json > signoff-2026.2.json
              plan-regen preview --out preview-2026.2.html

            """ + ExitCodes.help(ExitCodes.common))

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Assume the rollout starts at this RFC 3339 instant instead of now.", valueName: "instant"),
            transform: Instant.parse)
    var asOf: Instant?

    @Option(help: ArgumentHelp("text (people) or json (the sign-off record).", valueName: "text|json"))
    var format: Format = .text

    @Option(help: ArgumentHelp("Also write the preview as an HTML page to this file.", valueName: "file.html"))
    var out: String?

    @Option(help: ArgumentHelp("The page's numbers in this locale (BCP 47, e.g. de-DE).", valueName: "locale"))
    var locale: ReadableFormat = .standard

    func run() throws {
        try connection.run("preview") { _ in
            let preview = try RulesPreview.gather(
                from: connection.openStore(for: .readOnly), at: asOf ?? wallClockNow(),
                zones: try ZoneDatabase.loadSystem(), binaryVersion: binaryVersion)
            switch format {
            case .text: print(preview.text(), terminator: "")
            case .json: print(try preview.json())
            }
            if let out {
                try writeOutputFile(preview.html(readable: locale), to: out, what: "preview page")
            }
        }
    }
}
